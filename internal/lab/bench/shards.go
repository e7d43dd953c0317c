package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/sharding"
)

// ShardLeasePrefix is the operator's default --shard-lease-prefix.
const ShardLeasePrefix = "aztenant"

// ShardHolders reads which replica holds each of the n shard leases ("" for
// none).
func ShardHolders(ctx context.Context, c client.Reader, n int) (map[int]string, error) {
	var l coordinationv1.LeaseList
	if err := c.List(ctx, &l, client.InNamespace(ShardLeaseNamespace)); err != nil {
		return nil, err
	}
	out := map[int]string{}
	for k := range n {
		out[k] = ""
	}
	for _, lease := range l.Items {
		for k := range n {
			if lease.Name == sharding.ShardLease(ShardLeasePrefix, k) && lease.Spec.HolderIdentity != nil {
				out[k] = *lease.Spec.HolderIdentity
			}
		}
	}
	return out, nil
}

// ShardsOf lists the shards holders gives identity.
func ShardsOf(holders map[int]string, identity string) []int {
	var out []int
	for k, h := range holders {
		if h == identity {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ReplicaOf is the replica an ARM call's User-Agent names
// (aztenant-replica/<identity>), or "".
func ReplicaOf(userAgent string) string {
	for f := range strings.FieldsSeq(userAgent) {
		if id, ok := strings.CutPrefix(f, "aztenant-replica/"); ok {
			return id
		}
	}
	return ""
}

// Span is when one replica acted on one namespace: its first and last ARM
// call there.
type Span struct {
	Namespace, Replica string
	First, Last        time.Time
	Calls              int
}

// Spans groups ARM calls by namespace (nsOf maps a call's client ID to its
// namespace; "" skips the call) and replica.
func Spans(entries []emulator.AuditEntry, nsOf func(clientID string) string) []Span {
	idx := map[[2]string]*Span{}
	var out []*Span
	for _, e := range entries {
		ns := nsOf(e.ClientID)
		if e.Service != "arm" || ns == "" {
			continue
		}
		key := [2]string{ns, ReplicaOf(e.UserAgent)}
		s := idx[key]
		if s == nil {
			s = &Span{Namespace: ns, Replica: key[1], First: e.Time, Last: e.Time}
			idx[key] = s
			out = append(out, s)
		}
		if e.Time.Before(s.First) {
			s.First = e.Time
		}
		if e.Time.After(s.Last) {
			s.Last = e.Time
		}
		s.Calls++
	}
	res := make([]Span, len(out))
	for i, s := range out {
		res[i] = *s
	}
	return res
}

// Overlaps describes every pair of replicas whose spans on one namespace
// overlap in time: two replicas acted on it at once.
func Overlaps(spans []Span) []string {
	var out []string
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a.Namespace == b.Namespace && a.Replica != b.Replica && !a.Last.Before(b.First) && !b.Last.Before(a.First) {
				out = append(out, fmt.Sprintf("%s: %s (%s..%s, %d calls) and %s (%s..%s, %d calls)", a.Namespace,
					a.Replica, a.First.Format("15:04:05.000"), a.Last.Format("15:04:05.000"), a.Calls,
					b.Replica, b.First.Format("15:04:05.000"), b.Last.Format("15:04:05.000"), b.Calls))
			}
		}
	}
	return out
}

// ShardingLogLine reports whether an operator replica's log line tells how
// its shards went: the coordinator's and the work's (logger "sharding"),
// the process's start and its last words (a fatal error, a panic, a race).
func ShardingLogLine(line string) bool {
	if strings.Contains(line, `"logger":"sharding"`) || strings.Contains(line, "starting aztenant operator") ||
		strings.Contains(line, "error received after stop sequence") {
		return true
	}
	// What is not JSON is the process's own: "error: ..." from main.
	for _, p := range []string{"error:", "panic:", "fatal error:", "WARNING: DATA RACE"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// ErrorLogLine reports whether a log line is an error that ShardingLogLine
// does not keep (a reconciler's, a cache's).
func ErrorLogLine(line string) bool {
	return !ShardingLogLine(line) && (strings.Contains(line, `"level":"error"`) || strings.Contains(line, `"level":"dpanic"`))
}

// ReplicaReport describes each replica for a failed test: whether its
// process lives, the shards it holds (holders, when read), and from its
// log the last lines ShardingLogLine keeps, at most lines of them, and the
// last errors, at most lines/4; each cut to 400 characters.
func (s *Stack) ReplicaReport(holders map[int]string, lines int) string {
	var b strings.Builder
	for _, r := range s.Replicas {
		_, state := r.Alive()
		fmt.Fprintf(&b, "replica %s: %s, holds shards %v, log %s\n", r.Identity, state, ShardsOf(holders, r.Identity), r.Log)
		for _, part := range []struct {
			what string
			max  int
			keep func(string) bool
		}{{"sharding and process", lines, ShardingLogLine}, {"other error", max(lines/4, 1), ErrorLogLine}} {
			kept, matched, err := controlplane.Grep(r.Log, part.max, 400, part.keep)
			if err != nil {
				fmt.Fprintf(&b, "  (log: %v)\n", err)
				break
			}
			fmt.Fprintf(&b, "  %s lines: %d, the last %d:\n", part.what, matched, len(kept))
			for _, l := range kept {
				b.WriteString("    " + l + "\n")
			}
		}
	}
	return b.String()
}
