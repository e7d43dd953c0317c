package sharding

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/go-logr/logr/testr"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.WithoutCRDs(), testenv.WithoutReservation()) }

// ledger is who works on which shard, across the replicas of a test: a
// replica's work claims a shard when it starts on it and gives it up when
// it stops; a claim on a shard another replica works on is the overlap
// sharding must never allow.
type ledger struct {
	mu       sync.Mutex
	owner    map[int]string
	overlaps []string
}

func (l *ledger) set(id string, shards []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, o := range l.owner {
		if o == id && !slices.Contains(shards, k) {
			delete(l.owner, k)
		}
	}
	for _, k := range shards {
		if o, ok := l.owner[k]; ok && o != id {
			l.overlaps = append(l.overlaps, fmt.Sprintf("shard %d: %s starts while %s works on it", k, id, o))
		}
		l.owner[k] = id
	}
}

func (l *ledger) of(id string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for k, o := range l.owner {
		if o == id {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// replica is a Coordinator with a stand-in for the work: it follows
// Desired, giving shards up before reporting Working, as the operator's
// inner manager does. broken makes every lease call fail (a partition); a
// lost shard ends the work at once, as the process exit would.
type replica struct {
	id        string
	c         *Coordinator
	cancel    context.CancelFunc
	done      chan struct{}
	broken    atomic.Bool
	lost      atomic.Int32
	firstWork atomic.Pointer[time.Time]
}

// The leases' timing in these tests: long enough that a renewal, slow on a busy machine
// (two cores running the whole suite), is not taken for a partition (a 2 s renew
// deadline lost b's shards in CI, 2026-12-07).
const (
	testShards   = 4
	testDuration = 6 * time.Second
	testRenew    = 4 * time.Second
)

func startReplica(t *testing.T, cfg *rest.Config, l *ledger, ns, id string, shards int) *replica {
	t.Helper()
	r := &replica{id: id, done: make(chan struct{})}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if r.broken.Load() {
				return nil, errors.New("partitioned")
			}
			return rt.RoundTrip(req)
		})
	})
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	var (
		mu      sync.Mutex
		stopped bool
	)
	r.c, err = NewCoordinator(Options{Leases: cs.CoordinationV1(), Namespace: ns, Prefix: "t", Identity: id, Shards: shards,
		LeaseDuration: testDuration, RenewDeadline: testRenew, RetryPeriod: time.Second,
		Log: testr.New(t),
		Lost: func(k int) {
			// What the process exit does: no more work, at once.
			t.Logf("%s lost shard %d", id, k)
			r.lost.Add(1)
			mu.Lock()
			stopped = true
			l.set(id, nil)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		var last []int
		first := true
		for {
			desired, changed := r.c.Desired()
			mu.Lock()
			if !stopped && (first || !slices.Equal(desired, last)) {
				l.set(id, nil) // stop first
				r.c.Working(desired)
				l.set(id, desired)
				if now := time.Now(); len(desired) > 0 {
					r.firstWork.CompareAndSwap(nil, &now)
				}
				last, first = desired, false
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
				mu.Lock()
				l.set(id, nil)
				mu.Unlock()
				r.c.Working(nil)
				return
			case <-changed:
			}
		}
	}()
	go func() {
		_ = r.c.Start(ctx)
		close(r.done)
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func waitShares(t *testing.T, l *ledger, timeout time.Duration, want map[string]int) {
	t.Helper()
	waitSharesOf(t, l, testShards, timeout, want)
}

func waitSharesOf(t *testing.T, l *ledger, n int, timeout time.Duration, want map[string]int) {
	t.Helper()
	testenv.Eventually(t, timeout, fmt.Sprintf("shares %v", want), func() (bool, string) {
		state := ""
		ok := true
		total := 0
		for id, n := range want {
			got := l.of(id)
			total += len(got)
			state += fmt.Sprintf("%s=%v ", id, got)
			ok = ok && len(got) == n
		}
		return ok && total == n, state
	})
}

// Replicas share the shards out, hand extras back to a newcomer only once
// their work on them stopped, take a stopped replica's shards at once (it
// hands them back) and a partitioned replica's once its leases expire,
// after it stopped working on them; no shard is ever worked on by two.
func TestHandOver(t *testing.T) {
	env := testenv.Get(t)
	ns := "handover"
	if err := env.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	l := &ledger{owner: map[int]string{}}
	t.Cleanup(func() {
		if len(l.overlaps) > 0 {
			t.Errorf("overlapping work: %v", l.overlaps)
		}
	})
	a := startReplica(t, env.Config, l, ns, "a", testShards)
	waitShares(t, l, 20*time.Second, map[string]int{"a": 4})

	b := startReplica(t, env.Config, l, ns, "b", testShards)
	waitShares(t, l, 20*time.Second, map[string]int{"a": 2, "b": 2})

	// A clean stop hands the shards back: taken without waiting for expiry.
	start := time.Now()
	a.cancel()
	<-a.done
	waitShares(t, l, testDuration, map[string]int{"b": 4})
	t.Logf("shards of a stopped replica taken over in %s", time.Since(start).Round(time.Millisecond))
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), MemberLease("t", "a"), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("membership lease of the stopped replica: %v, want NotFound", err)
	}

	c := startReplica(t, env.Config, l, ns, "c", testShards)
	waitShares(t, l, 20*time.Second, map[string]int{"b": 2, "c": 2})

	// b is cut off: it stops its work within the renew deadline, c takes
	// its shards once their leases expired.
	start = time.Now()
	b.broken.Store(true)
	waitShares(t, l, 4*testDuration, map[string]int{"c": 4})
	t.Logf("shards of a partitioned replica taken over in %s", time.Since(start).Round(time.Millisecond))
	if b.lost.Load() == 0 {
		t.Error("the partitioned replica never reported its shards lost")
	}
	if got := time.Since(start); got < testRenew {
		t.Errorf("taken over after %s, before the partitioned replica's renew deadline", got)
	}
	if held := c.c.Held(); len(held) != testShards {
		t.Errorf("c holds %v", held)
	}

	// A replica counting another N (a rollout changing --shards) takes no
	// shard while c lives, whose shard k owns other buckets: only once c
	// stopped and handed its shards back.
	l8 := &ledger{owner: map[int]string{}}
	d := startReplica(t, env.Config, l8, ns, "d", 8)
	// d's membership renewed three times: it has looked at the shards
	// (it takes them from its second round) while c was live.
	rvs := map[string]bool{}
	testenv.Eventually(t, 30*time.Second, "d renews its membership while c lives", func() (bool, string) {
		l, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), MemberLease("t", "d"), metav1.GetOptions{})
		if err == nil {
			rvs[l.ResourceVersion] = true
		}
		return len(rvs) >= 4, fmt.Sprint(len(rvs), err)
	})
	if got := l8.of("d"); len(got) != 0 {
		t.Errorf("d works on %v while c, counting another N, lives", got)
	}
	c.cancel()
	<-c.done
	stopped := time.Now()
	waitSharesOf(t, l8, 8, 20*time.Second, map[string]int{"d": 8})
	if first := d.firstWork.Load(); first == nil || first.Before(stopped) {
		t.Errorf("d worked from %v, before c (another N) stopped at %s", first, stopped)
	}
}
