package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/sharding"
)

// ScenarioShards is the sharded operator's scenario (RunShards).
const ScenarioShards = "shards"

// ShardReplicas are the replica counts the shards scenario compares, all
// with --shards=ShardCount, after the baseline (one operator without --shards).
var ShardReplicas = []int{1, 2, 4}

// QuickShardReplicas are a quick run's (a test's): only the largest, where the
// caches split four ways and a failover moves a shard, without the baseline; each
// other run would add a minute of starting replicas and waiting out a lease.
var QuickShardReplicas = []int{4}

// shardRuns are the runs of the shards scenario, 0 the baseline.
func shardRuns(quick bool) []int {
	if quick {
		return QuickShardReplicas
	}
	return append([]int{0}, ShardReplicas...)
}

// ShardCount is the shards scenario's --shards.
const ShardCount = 4

// RunShards starts a stack in dir with no operator, then, for the single
// operator without --shards (the baseline: converge and RSS only) and 1, 2
// and 4 replicas in turn (4 only in a quick run) (each run on fresh namespaces, the earlier runs'
// objects staying): the converge workload (ResourceGroups and
// StorageAccounts across max(Namespaces, 8) namespaces) to Ready, each
// replica's RSS and objects cached (aztenant_shard_cached_objects, as a
// share of all the cluster's), then a SIGKILL of the replica caching most
// and the time until a new object in each of its namespaces is Ready
// (failover), and until its shard leases are held by others.
func RunShards(ctx context.Context, dir string, cfg Config, quick bool, progress io.Writer) (*Report, error) {
	rep := &Report{Started: time.Now(), Quick: quick, Config: cfg, Machine: NewMachine()}
	defer func() {
		rep.Seconds = time.Since(rep.Started).Seconds()
		rep.Machine.LoadAvgAfter = loadAvg()
	}()
	s, err := Start(ctx, Options{Dir: dir, Progress: progress, NoOperator: true,
		Emulator:     emulator.Config{AuditSize: 50000},
		OperatorArgs: []string{fmt.Sprintf("--sync-period=%s", cfg.SyncPeriod), fmt.Sprintf("--workers=%d", cfg.Workers)}})
	if err != nil {
		return rep, err
	}
	defer s.Stop()
	rep.Conditions = conditionsOf(s)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr, err := NewTracker(tctx, s.CP.Config)
	if err != nil {
		return rep, err
	}
	r := &runner{s: s, tr: tr, cfg: cfg, rep: rep}
	for _, n := range shardRuns(quick) {
		s.progress("scenario %s: %d replicas", ScenarioShards, n)
		if err := r.shards(ctx, n); err != nil {
			rep.Failures = append(rep.Failures, fmt.Sprintf("%s (%d replicas): %v", ScenarioShards, n, err))
			return rep, fmt.Errorf("%s with %d replicas: %w (logs in %s)", ScenarioShards, n, err, dir)
		}
	}
	return rep, nil
}

func (r *runner) shards(ctx context.Context, replicas int) error {
	cfg := r.cfg
	sc := ScenarioShards
	p := fmt.Sprintf("%d replica(s): ", replicas)
	if replicas == 0 {
		p = "no --shards (one operator): "
		if err := r.s.startOperator(ctx); err != nil {
			return err
		}
	} else {
		if err := r.s.StartReplicas(ctx, replicas, ShardCount, "--shard-lease-duration="+r.shardLease().String()); err != nil {
			return err
		}
		if _, err := r.waitShardsBalanced(ctx, time.Minute); err != nil {
			return err
		}
	}
	var nss []string
	for i := range max(cfg.Namespaces, 2*ShardCount) {
		nss = append(nss, fmt.Sprintf("shards%d-%02d", replicas, i))
	}
	if err := r.s.Onboard(ctx, nss...); err != nil {
		return err
	}
	if err := r.waitIdentities(ctx, nss, 2*time.Minute); err != nil {
		return err
	}
	var objs []client.Object
	for i := range cfg.ResourceGroups {
		ns := nss[i%len(nss)]
		objs = append(objs, ResourceGroup(ns, rgName(ns, i), map[string]string{"bench": "shards"}))
	}
	for j := range cfg.StorageAccounts {
		k := j % len(nss)
		ns := nss[k]
		objs = append(objs, StorageAccount(ns, fmt.Sprintf("s%d%02dsa%05d", replicas, k, j), rgName(ns, k)))
	}
	start := time.Now()
	if err := CreateAll(ctx, r.s.Client, cfg.Clients, objs); err != nil {
		return err
	}
	if _, err := r.tr.WaitReady(ctx, len(objs), inSet(nss), 200*time.Millisecond, 10*time.Minute); err != nil {
		return err
	}
	wall := time.Since(start)
	r.rep.add(sc, p+fmt.Sprintf("converge: %d resources in %d namespaces, --shards=%d", len(objs), len(nss), ShardCount), float64(len(objs)), "", nil)
	r.rep.add(sc, p+"converge wall time to all Ready", wall.Seconds(), "s", nil)
	r.rep.add(sc, p+"resources Ready per second", float64(len(objs))/wall.Seconds(), "/s", nil)

	if replicas == 0 {
		u, err := r.s.Operator.Usage()
		if err != nil {
			return err
		}
		r.rep.add(sc, p+"RSS after converge (VmRSS)", u.RSSMiB, "MiB", nil)
		r.rep.add(sc, p+"peak RSS (VmHWM)", u.PeakRSSMiB, "MiB", nil)
		return nil
	}
	// Per replica: memory and objects cached, as a share of all.
	total, err := r.clusterObjects(ctx, nil)
	if err != nil {
		return err
	}
	var most *Replica
	var mostCached float64
	for _, rep := range r.s.Replicas {
		want, err := r.expectedCached(ctx, rep)
		if err != nil {
			return err
		}
		var cached float64
		// The gauge counts at scrape time; the cache may lag the API by
		// an event or two.
		if err := WaitUntil(ctx, 200*time.Millisecond, 30*time.Second, rep.Identity+" cached objects", func() error {
			m, err := rep.Metrics(ctx)
			if err != nil {
				return err
			}
			cached = m.Sum("aztenant_shard_cached_objects", nil)
			if cached != float64(want) {
				return fmt.Errorf("%v cached, its shards hold %d", cached, want)
			}
			return nil
		}); err != nil {
			return err
		}
		u, err := rep.Usage()
		if err != nil {
			return err
		}
		var aim *Aim
		if replicas == 4 {
			aim = &Aim{"<=", 30}
		}
		q := p + rep.Identity + ": "
		r.rep.add(sc, q+fmt.Sprintf("objects cached (%v of %d)", cached, total), 100*cached/float64(total), "%", aim)
		r.rep.add(sc, q+"RSS after converge (VmRSS)", u.RSSMiB, "MiB", nil)
		r.rep.add(sc, q+"peak RSS (VmHWM)", u.PeakRSSMiB, "MiB", nil)
		if most == nil || cached > mostCached {
			most, mostCached = rep, cached
		}
	}
	if replicas < 2 {
		return nil
	}

	// Failover: SIGKILL the replica caching most; a new resource group in
	// each of its namespaces must become Ready through the others.
	holders, err := ShardHolders(ctx, r.s.Client, ShardCount)
	if err != nil {
		return err
	}
	theirs := ShardsOf(holders, most.Identity)
	var probes []client.Object
	var probeNS []string
	for i, ns := range nss {
		if slices.Contains(theirs, sharding.ShardOf(ns, ShardCount)) {
			probes = append(probes, ResourceGroup(ns, fmt.Sprintf("%s-failover%02d", ns, i), nil))
			probeNS = append(probeNS, ns)
		}
	}
	killed := time.Now()
	most.Kill()
	if err := CreateAll(ctx, r.s.Client, cfg.Clients, probes); err != nil {
		return err
	}
	leases := make(chan time.Duration, 1)
	go func() {
		err := WaitUntil(ctx, 100*time.Millisecond, 2*time.Minute, "the killed replica's leases taken", func() error {
			h, err := ShardHolders(ctx, r.s.Client, ShardCount)
			if err != nil {
				return err
			}
			for _, k := range theirs {
				if h[k] == most.Identity || h[k] == "" {
					return fmt.Errorf("shard %d held by %q", k, h[k])
				}
			}
			return nil
		})
		if err != nil {
			leases <- -1
			return
		}
		leases <- time.Since(killed)
	}()
	// The probes wait for the failover: none is Ready yet.
	before, err := r.tr.Count(ctx, inSet(probeNS))
	if err != nil {
		return err
	}
	if _, err := r.tr.WaitReady(ctx, before.Ready+len(probes), inSet(probeNS), 100*time.Millisecond, 3*time.Minute); err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	failover := time.Since(killed)
	took := <-leases
	r.rep.add(sc, p+fmt.Sprintf("failover: SIGKILL of %s (shards %v, %d namespaces) to a new resource group in each Ready", most.Identity, theirs, len(probeNS)), failover.Seconds(), "s", nil)
	if took >= 0 {
		r.rep.add(sc, p+fmt.Sprintf("failover: SIGKILL to its shard leases held by the others (lease duration %s)", r.shardLease()), took.Seconds(), "s", nil)
	}
	return nil
}

// waitShardsBalanced waits until the running replicas hold the targets of
// ShardCount among them.
func (r *runner) waitShardsBalanced(ctx context.Context, timeout time.Duration) (map[int]string, error) {
	var ids []string
	for _, rep := range r.s.Replicas {
		ids = append(ids, rep.Identity)
	}
	targets := sharding.Targets(ShardCount, ids)
	var holders map[int]string
	err := WaitUntil(ctx, 100*time.Millisecond, timeout, "shards balanced", func() error {
		var err error
		if holders, err = ShardHolders(ctx, r.s.Client, ShardCount); err != nil {
			return err
		}
		for _, id := range ids {
			if got := len(ShardsOf(holders, id)); got != targets[id] {
				return fmt.Errorf("holders %v", holders)
			}
		}
		return nil
	})
	return holders, err
}

// clusterObjects counts the tracked objects (Azure kinds and Identities)
// whose namespace keep accepts (nil: all).
func (r *runner) clusterObjects(ctx context.Context, keep func(string) bool) (int, error) {
	n := 0
	for _, l := range TrackedLists() {
		if err := r.tr.Reader().List(ctx, l); err != nil {
			return 0, err
		}
		_ = meta.EachListItem(l, func(o runtime.Object) error {
			if ns := o.(client.Object).GetNamespace(); keep == nil || keep(ns) {
				n++
			}
			return nil
		})
	}
	return n, nil
}

// expectedCached is how many tracked objects the shards rep holds contain.
func (r *runner) expectedCached(ctx context.Context, rep *Replica) (int, error) {
	holders, err := ShardHolders(ctx, r.s.Client, ShardCount)
	if err != nil {
		return 0, err
	}
	mine := ShardsOf(holders, rep.Identity)
	return r.clusterObjects(ctx, func(ns string) bool { return slices.Contains(mine, sharding.ShardOf(ns, ShardCount)) })
}

// shardLease is the replicas' --shard-lease-duration: the operator's default (10s), or
// 30s in a quick run. A quick run is a test, often on cores other tests keep busy: there
// a starved API server answered a renewal after the renew deadline (70 % of the lease),
// and both replicas exited on purpose, as they must (CI, 2026-12-05). Its failover
// figures say which lease they were measured with.
func (r *runner) shardLease() time.Duration {
	if r.rep.Quick {
		return 30 * time.Second
	}
	return 10 * time.Second
}
