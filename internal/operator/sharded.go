package operator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/sharding"
	"github.com/aztenant/aztenant/tenancy"
)

// ShardOptions run the operator sharded (--shards=N, N > 1).
type ShardOptions struct {
	Shards int
	// Identity is this replica's (the pod name); LeaseNamespace holds the
	// leases, named after LeasePrefix.
	Identity, LeaseNamespace, LeasePrefix string
	// LeaseDuration of the shard leases (10s by default); the renew deadline
	// and retry period are 70 % and 20 % of it.
	LeaseDuration time.Duration
	// MetricsAddr and ProbeAddr are the listeners, which stay up while the
	// work restarts.
	MetricsAddr, ProbeAddr string
	// GracefulShutdownTimeout bounds how long the work on shards being
	// handed back may take to stop (30s); past it the process exits.
	GracefulShutdownTimeout time.Duration
}

// ErrWorkNotStopped says the work on shards did not stop within the
// graceful shutdown timeout: the process must end before its leases expire.
var ErrWorkNotStopped = errors.New("the work on the shards did not stop in time")

// RunSharded runs the operator as one of several replicas sharing the
// namespaces out (package sharding). An outer manager, never restarted,
// serves metrics and probes and runs the shard coordinator; the work
// (every controller of Setup, with a cache holding only the shards'
// objects) runs in an inner manager, rebuilt whenever the shards held
// change. The holder of shard 0 also runs the Tenant status controller and
// the labeller, for every bucket: its 300-odd metadata watches cost a
// replica some 50 MiB, which the others save. before, when set, runs on
// the outer manager before it starts.
func RunSharded(ctx context.Context, restCfg *rest.Config, scheme *runtime.Scheme, cfg Config, so ShardOptions, before func(ctrl.Manager) error) error {
	if so.GracefulShutdownTimeout == 0 {
		so.GracefulShutdownTimeout = 30 * time.Second
	}
	log := ctrl.Log.WithName("sharding")
	// The leases get a connection of their own (a Dial of their own keeps
	// client-go from sharing its cached transport): on the shared one they
	// queue behind some 600 watches and the lists of a starting cache.
	leaseCfg := rest.CopyConfig(restCfg)
	leaseCfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	rest.AddUserAgent(leaseCfg, "shard-leases")
	cs, err := kubernetes.NewForConfig(leaseCfg)
	if err != nil {
		return err
	}
	coord, err := sharding.NewCoordinator(sharding.Options{Leases: cs.CoordinationV1(), Namespace: so.LeaseNamespace, Prefix: so.LeasePrefix,
		Identity: so.Identity, Shards: so.Shards, LeaseDuration: so.LeaseDuration, Log: log})
	if err != nil {
		return err
	}
	outer, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: so.MetricsAddr},
		HealthProbeBindAddress:  so.ProbeAddr,
		GracefulShutdownTimeout: ptr.To(so.GracefulShutdownTimeout + 10*time.Second),
	})
	if err != nil {
		return err
	}
	if err := outer.Add(coord); err != nil {
		return err
	}
	cfg.Replica = so.Identity
	if err := outer.Add(&shardWork{restCfg: restCfg, scheme: scheme, cfg: cfg, so: so, coord: coord}); err != nil {
		return err
	}
	if before != nil {
		if err := before(outer); err != nil {
			return err
		}
	}
	if err := outer.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := outer.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return outer.Start(ctx)
}

// ShardCacheOptions are the inner manager's cache options for shards of n:
// the served-namespaces restriction, and the aztenant kinds (any, the ones
// installed later included) through the shards' bucket selector; the
// types without the label (Namespaces, Secrets, ConfigMaps,
// ServiceAccounts, Tenants, CRDs) are all cached, as without shards.
func ShardCacheOptions(served tenancy.ServeMode, shards []int, n int) (cache.Options, error) {
	o := CacheOptions(served)
	sel, err := sharding.Selector(shards, n)
	if err != nil {
		return o, err
	}
	o.DefaultLabelSelector = sel
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	all := cache.ByObject{Label: labels.Everything()}
	o.ByObject = map[client.Object]cache.ByObject{
		&corev1.Namespace{}: all, &corev1.Secret{}: all, &corev1.ConfigMap{}: all, &corev1.ServiceAccount{}: all,
		&tenancyv1alpha1.Tenant{}: all, crd: all,
	}
	return o, nil
}

// shardWork runs the inner manager for the shards the coordinator wants
// worked on, restarting it when they change.
type shardWork struct {
	restCfg *rest.Config
	scheme  *runtime.Scheme
	cfg     Config
	so      ShardOptions
	coord   *sharding.Coordinator
}

func (w *shardWork) NeedLeaderElection() bool { return false }

func (w *shardWork) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("sharding").WithValues("identity", w.so.Identity)
	var (
		current []int
		stop    func() error
		done    <-chan error
	)
	// Out of the work once it stopped; not when it did not stop in time:
	// its shards stay held until the process exits and their leases
	// expire, so that no other replica takes them while it may still act.
	stuck := false
	defer func() {
		if !stuck {
			w.coord.Working(nil)
		}
	}()
	for {
		desired, changed := w.coord.Desired()
		if stop == nil || !slices.Equal(desired, current) {
			if stop != nil {
				start := time.Now()
				sharding.SetCachedCounter(nil)
				if err := stop(); err != nil {
					stuck = errors.Is(err, ErrWorkNotStopped)
					return err
				}
				if len(current) > 0 {
					log.Info("work on shards stopped", "shards", current, "took", time.Since(start).Round(time.Millisecond).String())
				}
				stop, done = nil, nil
			}
			// Out of the work now: the coordinator may hand these back.
			w.coord.Working(desired)
			current = desired
			if len(desired) > 0 {
				var err error
				if stop, done, err = w.start(ctx, desired); err != nil {
					return fmt.Errorf("start the work on shards %v: %w", desired, err)
				}
			} else {
				stop = func() error { return nil }
			}
		}
		select {
		case <-ctx.Done():
			sharding.SetCachedCounter(nil)
			err := stop()
			stuck = errors.Is(err, ErrWorkNotStopped)
			return err
		case err := <-done:
			return fmt.Errorf("the work on shards %v ended: %w", current, err)
		case <-changed:
		}
	}
}

// start builds and starts the inner manager for shards; stop ends it and
// waits (an error: it did not end cleanly in time).
func (w *shardWork) start(ctx context.Context, shards []int) (stop func() error, done <-chan error, err error) {
	log := ctrl.Log.WithName("sharding").WithValues("identity", w.so.Identity, "shards", shards)
	began := time.Now()
	co, err := ShardCacheOptions(w.cfg.Served, shards, w.so.Shards)
	if err != nil {
		return nil, nil, err
	}
	mctx, cancel := context.WithCancel(ctx)
	mgr, err := ctrl.NewManager(w.restCfg, ctrl.Options{
		Scheme: w.scheme,
		// The outer manager serves the (process-wide) metrics registry
		// and the probes.
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Cache:                   co,
		NewCache:                StoppableCache(mctx.Done()),
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
		GracefulShutdownTimeout: ptr.To(w.so.GracefulShutdownTimeout),
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	cfg := w.cfg
	n := w.so.Shards
	cfg.Owns = func(ns string) bool {
		k := sharding.ShardOf(ns, n)
		return slices.Contains(shards, k) && w.coord.Owns(k)
	}
	cfg.SkipClusterControllers = !slices.Contains(shards, 0)
	parts, err := Setup(mctx, mgr, cfg)
	if err == nil && !cfg.SkipClusterControllers {
		err = w.labeller(mgr)
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	ch := make(chan error, 1)
	go func() { ch <- mgr.Start(mctx) }()
	go func() {
		if mgr.GetCache().WaitForCacheSync(mctx) && mctx.Err() == nil {
			count := cachedCounter(mgr.GetCache(), parts)
			sharding.SetCachedCounter(count)
			log.Info("working on shards", "cachedObjects", count(), "took", time.Since(began).Round(time.Millisecond).String())
		}
	}()
	// Start reads ch when the manager ends by itself, stop when it is
	// stopped: never both. The manager bounds its runnables' stop by the
	// graceful shutdown timeout; stop bounds the whole, with a margin for
	// the manager to report it.
	stop = func() error {
		cancel()
		t := time.NewTimer(w.so.GracefulShutdownTimeout + 5*time.Second)
		defer t.Stop()
		select {
		case err := <-ch:
			if err != nil {
				return fmt.Errorf("%w: %w", ErrWorkNotStopped, err)
			}
			return nil
		case <-t.C:
			return fmt.Errorf("%w: the manager of shards %v still runs %s after it was stopped", ErrWorkNotStopped, shards, w.so.GracefulShutdownTimeout+5*time.Second)
		}
	}
	return stop, ch, nil
}

// labeller runs the Labeller in mgr, with a cache of its own (objects
// without the bucket label), labelling every bucket while this replica
// works on shard 0.
func (w *shardWork) labeller(mgr ctrl.Manager) error {
	o := sharding.LabellerCacheOptions()
	o.Scheme, o.Mapper, o.HTTPClient = w.scheme, mgr.GetRESTMapper(), mgr.GetHTTPClient()
	c, err := cache.New(w.restCfg, o)
	if err != nil {
		return err
	}
	if err := mgr.Add(c); err != nil {
		return err
	}
	l := &sharding.Labeller{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Cache: c,
		Owns: func(int) bool { return w.coord.Owns(0) }}
	if w.cfg.Kinds != nil {
		l.Selected = w.cfg.Kinds.Selects
	}
	return l.SetupWithManager(mgr)
}

// cachedCounter counts the objects of the served kinds and Identities in
// c, which must hold their informers already (ListOptions on a missing
// informer would start one).
func cachedCounter(c cache.Cache, parts *Parts) func() float64 {
	return func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		total := 0
		lists := []client.ObjectList{&identityv1alpha1.IdentityList{}}
		for _, gk := range parts.Kinds.Served() {
			k, ok := parts.Kinds.Registry.Lookup(gk)
			if !ok {
				continue
			}
			if l, err := parts.Kinds.Registry.NewList(k); err == nil {
				lists = append(lists, l)
			}
		}
		for _, l := range lists {
			if err := c.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
				continue
			}
			total += meta.LenList(l)
		}
		return float64(total)
	}
}

// StoppableCache is the inner manager's NewCache: the cache it makes
// reports itself synced once stopping is closed. controller-runtime's
// manager (v0.24) waits for its cache to sync before it looks at its
// context again, spinning on the cancelled context meanwhile: stopped
// during the first sync (the shards changed while some 300 informers were
// still listing), its Start went on for as long as the sync took, burning
// a CPU, and forever if an informer never synced; the shards being handed
// back stayed held all along. Reported synced, the manager reaches its
// stop procedure at once, which the graceful shutdown timeout bounds.
func StoppableCache(stopping <-chan struct{}) cache.NewCacheFunc {
	return func(config *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := cache.New(config, opts)
		if err != nil {
			return nil, err
		}
		return &stoppableCache{Cache: c, stopping: stopping}, nil
	}
}

type stoppableCache struct {
	cache.Cache
	stopping <-chan struct{}
}

// WaitForCacheSync is the cache's, or true as soon as stopping closes.
func (c *stoppableCache) WaitForCacheSync(ctx context.Context) bool {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stopping:
			cancel()
		case <-wctx.Done():
		}
	}()
	if c.Cache.WaitForCacheSync(wctx) {
		return true
	}
	select {
	case <-c.stopping:
		return true
	default:
		return false
	}
}
