package faults_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/bench"
	"github.com/aztenant/aztenant/internal/sharding"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

const shardCount = 3

// shardNamespaces picks namespace names, perShard in each of the n shards.
func shardNamespaces(n, perShard int) []string {
	count := map[int]int{}
	var out []string
	for i := 0; len(out) < n*perShard; i++ {
		ns := fmt.Sprintf("shard-%02d", i)
		if k := sharding.ShardOf(ns, n); count[k] < perShard {
			count[k]++
			out = append(out, ns)
		}
	}
	return out
}

// Three replicas with --shards=3 share six namespaces out: objects created
// before and after they start are labelled with their bucket and become
// Ready; each replica caches exactly its shard's objects; a replica killed
// with SIGKILL has its namespaces reconciled by the others within a bound,
// and a replica started again gets a shard back. Throughout, the
// emulator's audit never shows two replicas acting on one namespace at
// overlapping times (each replica names itself in the User-Agent).
// shardLease is the replicas' --shard-lease-duration: twice the default, so a replica
// starved of CPU beside the other test packages (a renewal answered after 7 s, seen
// in make test on 2 cores, 2026-12-05) does not give its shards up and exit, which
// is what it must do when it cannot renew; the failover bound follows the lease.
const shardLease = 20 * time.Second

func TestShardedReplicasKill(t *testing.T) {
	s := getStack(t)
	ctx := t.Context()
	nss := shardNamespaces(shardCount, 2)
	onboard(t, s, nss...)
	// The single operator onboarded them; from here on the replicas work.
	s.Operator.Stop(30 * time.Second)
	t.Cleanup(func() {
		s.StopReplicas()
		// Not ctx: the test's context is done when cleanups run.
		if err := s.StartOperator(context.Background()); err != nil {
			t.Errorf("start the single operator again: %v", err)
		}
	})
	// Runs before the cleanup above (LIFO): the replicas still run, as
	// they were when the test failed.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		holders, err := bench.ShardHolders(context.Background(), s.Client, shardCount)
		if err != nil {
			t.Logf("read the shard leases: %v", err)
		}
		t.Logf("shard holders %v; the replicas:\n%s", holders, s.ReplicaReport(holders, 40))
	})
	since := lastSeq(t, s)

	var objs []azurev1alpha1.Resource
	add := func(ns, name string) azurev1alpha1.Resource {
		rg := bench.ResourceGroup(ns, ns+"-"+name, nil)
		objs = append(objs, rg)
		return rg
	}
	// Before the replicas start: the labeller finds them at its first list.
	for _, ns := range nss {
		create(t, s, add(ns, "before"))
	}
	start := time.Now()
	if err := s.StartReplicas(ctx, shardCount, shardCount, "--shard-lease-duration="+shardLease.String()); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss {
		rg := add(ns, "after")
		create(t, s, rg, bench.UserAssignedIdentity(ns, "uai", rg.GetName()))
		objs = append(objs, bench.UserAssignedIdentity(ns, "uai", rg.GetName()))
	}
	waitAllReady(t, 3*time.Minute, objs)
	t.Logf("%d objects in %d namespaces Ready %s after the replicas started", len(objs), len(nss), time.Since(start).Round(time.Millisecond))
	checkLabels(t, s, objs)

	// One shard each, and each replica caches its shard's objects only.
	holders := waitBalanced(t, s, time.Minute)
	checkCached(t, s, holders)

	// SIGKILL the holder of shard 0 (it runs the Tenant status controller
	// too), then change each of its namespaces.
	victim := replicaOf(t, s, holders[0])
	victimID := victim.Identity
	var theirs []azurev1alpha1.Resource
	killed := time.Now()
	victim.Kill()
	for _, ns := range nss {
		if sharding.ShardOf(ns, shardCount) == 0 {
			rg := add(ns, "failover")
			create(t, s, rg)
			theirs = append(theirs, rg)
		}
	}
	waitAllReady(t, 2*time.Minute, theirs)
	failover := time.Since(killed)
	t.Logf("the killed replica's namespaces reconciled by another %s after the kill (lease duration %s)", failover.Round(time.Millisecond), shardLease)
	if bound := shardLease + 40*time.Second; failover > bound {
		t.Errorf("failover took %s, want at most %s (the lease and 40 s)", failover, bound)
	}
	after, err := bench.ShardHolders(ctx, s.Client, shardCount)
	if err != nil {
		t.Fatal(err)
	}
	if after[0] == victimID || after[0] == "" {
		t.Errorf("shard 0 held by %q after the kill of %s", after[0], victimID)
	}

	// Started again (a new pod): it gets a shard back, and all namespaces
	// keep being served.
	if err := s.RestartReplica(ctx, victim); err != nil {
		t.Fatal(err)
	}
	holders = waitBalanced(t, s, time.Minute)
	for _, ns := range nss {
		rg := add(ns, "rebalanced")
		create(t, s, rg)
	}
	waitAllReady(t, 2*time.Minute, objs)
	checkCached(t, s, holders)

	// The audit: every ARM call named its replica, and no two replicas
	// acted on one namespace at overlapping times.
	entries, err := s.Emulator.Audit(ctx, emulator.AuditFilter{Since: since, Service: "arm"})
	if err != nil {
		t.Fatal(err)
	}
	byClient := map[string]string{}
	for _, ns := range nss {
		byClient[bench.ClientID(ns)] = ns
	}
	spans := bench.Spans(entries, func(id string) string { return byClient[id] })
	replicas := map[string]bool{}
	for _, sp := range spans {
		if sp.Replica == "" {
			t.Errorf("%d ARM calls in %s name no replica", sp.Calls, sp.Namespace)
		}
		replicas[sp.Replica] = true
	}
	if len(replicas) < shardCount+1 {
		t.Errorf("ARM calls by %d replicas, want the %d first ones and the restarted one", len(replicas), shardCount)
	}
	for _, o := range bench.Overlaps(spans) {
		t.Errorf("two replicas acted on one namespace at once: %s", o)
	}
	t.Logf("audit: %d ARM calls, %d (namespace, replica) spans, no overlap", len(entries), len(spans))
}

// checkLabels checks every object carries its namespace's bucket.
func checkLabels(t *testing.T, s *bench.Stack, objs []azurev1alpha1.Resource) {
	t.Helper()
	for _, o := range objs {
		cur := o.DeepCopyObject().(azurev1alpha1.Resource)
		if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(o), cur); err != nil {
			t.Fatal(err)
		}
		if got, want := cur.GetLabels()[sharding.LabelBucket], sharding.BucketLabel(o.GetNamespace()); got != want {
			t.Errorf("%s/%s: label %s=%q, want %q", o.GetNamespace(), o.GetName(), sharding.LabelBucket, got, want)
		}
	}
}

// waitBalanced waits until each replica holds one shard and returns the
// holders.
func waitBalanced(t *testing.T, s *bench.Stack, timeout time.Duration) map[int]string {
	t.Helper()
	var holders map[int]string
	testenv.Eventually(t, timeout, "one shard per replica", func() (bool, string) {
		var err error
		if holders, err = bench.ShardHolders(t.Context(), s.Client, shardCount); err != nil {
			return false, err.Error()
		}
		done := true
		var dead []string
		for _, r := range s.Replicas {
			done = done && len(bench.ShardsOf(holders, r.Identity)) == 1
			if alive, state := r.Alive(); !alive {
				dead = append(dead, r.Identity+" "+state)
			}
		}
		if len(dead) > 0 {
			return done, fmt.Sprintf("%v; not running: %v", holders, dead)
		}
		return done, fmt.Sprint(holders)
	})
	return holders
}

func replicaOf(t *testing.T, s *bench.Stack, identity string) *bench.Replica {
	t.Helper()
	for _, r := range s.Replicas {
		if r.Identity == identity {
			return r
		}
	}
	t.Fatalf("no replica %q", identity)
	return nil
}

// checkCached waits until each replica's aztenant_shard_cached_objects is
// the number of Azure-backed objects and Identities, of every test, in its
// shards' namespaces.
func checkCached(t *testing.T, s *bench.Stack, holders map[int]string) {
	t.Helper()
	for _, r := range s.Replicas {
		shards := bench.ShardsOf(holders, r.Identity)
		testenv.Eventually(t, 30*time.Second, r.Identity+" caches its shards' objects", func() (bool, string) {
			want := 0
			for _, l := range bench.TrackedLists() {
				if err := s.Client.List(t.Context(), l); err != nil {
					return false, err.Error()
				}
				_ = meta.EachListItem(l, func(o runtime.Object) error {
					if slices.Contains(shards, sharding.ShardOf(o.(client.Object).GetNamespace(), shardCount)) {
						want++
					}
					return nil
				})
			}
			m, err := r.Metrics(t.Context())
			if err != nil {
				return false, err.Error()
			}
			got := m.Sum("aztenant_shard_cached_objects", nil)
			return got == float64(want), fmt.Sprintf("%v cached, want %d (shards %v)", got, want, shards)
		})
	}
}
