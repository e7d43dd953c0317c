package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// Options wire the controllers of all kinds to the rest of the operator (the
// settings they run with are the Reconciler's reconcilers.Settings).
type Options struct {
	// Again is set when the kind was served before (its CRD was deleted and is
	// installed again): its controller's name is known to controller-runtime.
	Again bool
	// NewQueue, when set, replaces the default work queue (per-tenant fairness).
	NewQueue func(controllerName string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]
	// AdmissionChanges, when set, subscribes to namespaces whose guard answer
	// may have changed (a Tenant appeared, changed or went away); their
	// objects are reconciled again at once rather than at the next requeue.
	AdmissionChanges func(ctx context.Context) <-chan []string

	// watches are the handlers the controllers share on the informers they
	// all watch (the KindServer's; Build makes its own without).
	watches *sharedWatches
}

// The operator's permissions for Azure-backed kinds. Each line says why.
//
// Read and watch the resources, add and remove the finalizer:
// +kubebuilder:rbac:groups=resources.aztenant.io;managedidentity.aztenant.io;authorization.aztenant.io;storage.aztenant.io;cache.aztenant.io;dbforpostgresql.aztenant.io;containerservice.aztenant.io,resources=*,verbs=get;list;watch;patch;update
// Report status:
// +kubebuilder:rbac:groups=resources.aztenant.io;managedidentity.aztenant.io;authorization.aztenant.io;storage.aztenant.io;cache.aztenant.io;dbforpostgresql.aztenant.io;containerservice.aztenant.io,resources=*/status,verbs=get;patch;update
// Set owner references on exports (clusters enforcing OwnerReferencesPermissionEnforcement):
// +kubebuilder:rbac:groups=resources.aztenant.io;managedidentity.aztenant.io;authorization.aztenant.io;storage.aztenant.io;cache.aztenant.io;dbforpostgresql.aztenant.io;containerservice.aztenant.io,resources=*/finalizers,verbs=update
// Export keys, connection strings and IDs to Secrets and ConfigMaps the resource owns:
// +kubebuilder:rbac:groups="",resources=secrets;configmaps,verbs=get;list;watch;create;update
// Read a namespace's reconcile policy annotation:
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// Build registers the field indexes and the controller of r.Kind with mgr,
// and returns the controller; it works on a manager already started (the
// controller starts at once). The kind is then served (Registry.MarkServed).
//
// The controller reacts to spec and annotation changes of its objects (not to
// its own status writes), to Identities of the namespace (a missing one may
// appear, one being deleted stops its objects' updates), to owners (a child
// waits for its owner to become Ready), to the data of the Secrets and
// ConfigMaps its objects read (Hooks.References), to a change of a
// namespace's labels or annotations (its reconcile policy), to Tenant
// changes through Options.AdmissionChanges, and to the drift check of
// another object of the same collection (Reconciler.WakeWith). A
// namespace's change reconciles all its objects of the kind (allInNamespace).
//
// Owner kinds are watched when their controller runs (Registry.Served): an
// owner kind whose CRD is not installed is not watched, nor cached;
// OwnerServed adds its watch once it is.
func Build(ctx context.Context, mgr ctrl.Manager, r *reconcilers.Reconciler, o Options) (*Controller, error) {
	obj := r.Kind.New()
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return nil, err
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, obj, reconcilers.OwnerIndex, reconcilers.OwnerName); err != nil {
		return nil, err
	}
	if o.watches == nil {
		o.watches = newSharedWatches(mgr.GetCache())
	}
	objs := objects{client: r.Client, registry: r.Registry, kind: r.Kind, stopped: &atomic.Bool{}}
	run := &stoppable{done: make(chan struct{})}
	var skipNameValidation *bool // the manager's setting
	if o.Again {
		skipNameValidation = &o.Again // its name was registered by the controller it replaces
	}
	b := ctrl.NewControllerManagedBy(stoppableManager{Manager: mgr, run: run}).
		Named(strings.ToLower(gvk.Kind)+"."+gvk.Group).
		For(obj, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Settings.WithDefaults().Workers, NewQueue: o.NewQueue, SkipNameValidation: skipNameValidation}).
		WatchesRawSource(o.watches.source(&identityv1alpha1.Identity{}, handler.EnqueueRequestsFromMapFunc(objs.identityChanged))).
		WatchesRawSource(o.watches.source(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return objs.allInNamespace(ctx, o.GetName(), "its labels or annotations changed")
		}), namespaceMetadataChanged))
	facts, hooks := r.Kind.Facts(), r.Kind.Hooks()
	if hooks.References != nil {
		// A referenced Secret or ConfigMap that appears lets a waiting object
		// proceed; one that changes is written to Azure (a rotated password).
		// The index finds the objects that read it, Ready or not; changes to
		// other Secrets, or only to metadata, enqueue nothing.
		if err := mgr.GetFieldIndexer().IndexField(ctx, obj, referencesIndex, func(o client.Object) []string {
			var keys []string
			for _, ref := range hooks.References(o.(azurev1alpha1.Resource)) {
				keys = append(keys, referenceKey(ref.Kind, ref.Name))
			}
			return keys
		}); err != nil {
			return nil, err
		}
		b = b.WatchesRawSource(o.watches.source(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(objs.referencing(reconcilers.ReferenceSecret)), dataChanged)).
			WatchesRawSource(o.watches.source(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(objs.referencing(reconcilers.ReferenceConfigMap)), dataChanged))
	} else if hooks.Resolve != nil {
		// A referenced Secret or ConfigMap that appears lets a waiting object proceed.
		b = b.WatchesRawSource(o.watches.source(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(objs.inNamespace))).
			WatchesRawSource(o.watches.source(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(objs.inNamespace)))
	}
	if ok := facts.OwnerKind; !ok.Empty() {
		if _, found := r.Registry.Lookup(ok); !found {
			return nil, fmt.Errorf("owner kind %s is not served by this operator", ok)
		}
	}
	// Onboarding granted or took away something in Azure (a role, a resource
	// group): what waits in the Tenant's namespaces looks again at once.
	b = b.WatchesRawSource(o.watches.source(&tenancyv1alpha1.Tenant{}, handler.EnqueueRequestsFromMapFunc(objs.tenantOnboarded), onboardingChanged))
	if o.AdmissionChanges != nil {
		b = b.WatchesRawSource(source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			changes := o.AdmissionChanges(ctx)
			go func() {
				for namespaces := range changes {
					for _, ns := range namespaces {
						for _, req := range objs.allInNamespace(ctx, ns, "a Tenant changed") {
							q.Add(req)
						}
					}
				}
			}()
			return nil
		}))
	}
	// A collection listed for one object's drift check wakes the others that
	// compare with the same listing (reconcilers/lists.go).
	b = b.WatchesRawSource(source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		r.WakeWith(func(keys []types.NamespacedName) {
			for _, k := range keys {
				q.Add(reconcile.Request{NamespacedName: k})
			}
		})
		return nil
	}))
	c, err := b.Build(r)
	if err != nil {
		return nil, err
	}
	ctl := &Controller{Controller: c, objs: objs, cache: mgr.GetCache(), watches: o.watches, run: run, owners: map[schema.GroupKind]bool{}}
	r.Registry.MarkServed(gvk.GroupKind())
	for _, gk := range ctl.ownerKinds() {
		if r.Registry.Served(gk) {
			if err := ctl.OwnerServed(gk); err != nil {
				return nil, err
			}
		}
	}
	return ctl, nil
}

// Controller is the running controller of one kind, which can start
// watching an owner kind served later (OwnerServed), and be stopped with its
// kind's informer (Stop).
type Controller struct {
	controller.Controller
	objs    objects
	cache   cache.Cache
	watches *sharedWatches
	run     *stoppable

	mu     sync.Mutex
	owners map[schema.GroupKind]bool // watched
}

// ownerKinds are the kinds this operator serves that the kind's objects may
// name as owner.
func (c *Controller) ownerKinds() []schema.GroupKind {
	facts := c.objs.kind.Facts()
	var out []schema.GroupKind
	for _, gk := range append([]schema.GroupKind{facts.OwnerKind}, facts.OwnerKinds...) {
		if _, ok := c.objs.registry.Lookup(gk); ok && !gk.Empty() && !slices.Contains(out, gk) {
			out = append(out, gk)
		}
	}
	return out
}

// OwnerServed starts watching owners of kind gk, now served: a child waits
// for its owner to become Ready. Nothing when the kind's objects cannot name
// gk as owner, or it is watched already.
func (c *Controller) OwnerServed(gk schema.GroupKind) error {
	if !slices.Contains(c.ownerKinds(), gk) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.owners[gk] {
		return nil
	}
	k, _ := c.objs.registry.Lookup(gk) // ownerKinds holds registered kinds only
	if err := c.Watch(c.watches.source(k.New(), handler.EnqueueRequestsFromMapFunc(c.objs.childrenOfOwner), ownerStateChanged)); err != nil {
		return err
	}
	c.owners[gk] = true
	return nil
}

// Stop stops the controller, once its workers have finished what they were
// doing, its watches of other kinds, and the informer of its kind (its
// objects' cache and indexes, the watches of its objects as owners): its
// CRD was deleted.
func (c *Controller) Stop(ctx context.Context) error {
	c.objs.stopped.Store(true)
	if err := c.run.halt(ctx); err != nil {
		return err
	}
	obj := c.objs.kind.New()
	c.watches.forget(obj)
	return c.cache.RemoveInformer(ctx, obj)
}

// OwnerRetired forgets the watch of owners of kind gk, whose informer went
// with its controller (Stop): OwnerServed watches them again once gk is
// served again.
func (c *Controller) OwnerRetired(gk schema.GroupKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.owners, gk)
}

// stoppableManager is the manager a kind's controller is built with: it adds
// the controller to the manager as a stoppable runnable (the builder of
// controller-runtime adds it for the manager's whole life).
type stoppableManager struct {
	ctrl.Manager
	run *stoppable
}

func (m stoppableManager) Add(r manager.Runnable) error {
	m.run.Runnable = r
	return m.Manager.Add(m.run)
}

// stoppable runs a controller until the manager stops or halt is called.
type stoppable struct {
	manager.Runnable
	mu     sync.Mutex
	halted bool
	cancel context.CancelFunc // of the running controller's context
	done   chan struct{}      // closed when a started controller has returned
}

// Start runs the controller until ctx ends or halt is called. Halted, it
// returns nil whatever the controller said (a controller stopped during its
// first sync says the sync failed): the manager goes on.
func (s *stoppable) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.halted {
		s.mu.Unlock()
		return nil
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.mu.Unlock()
	defer close(s.done)
	err := s.Runnable.Start(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted {
		return nil
	}
	return err
}

// NeedLeaderElection is the controller's: it runs on the leader only.
func (s *stoppable) NeedLeaderElection() bool {
	if l, ok := s.Runnable.(manager.LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}

// halt stops the controller and waits until it has returned (if it had
// started), or ctx ends.
func (s *stoppable) halt(ctx context.Context) error {
	s.mu.Lock()
	s.halted = true
	started := s.cancel != nil
	if started {
		s.cancel()
	}
	s.mu.Unlock()
	if !started {
		return nil // the manager has not started it: it returns at once when it does
	}
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the controller's workers to finish: %w", ctx.Err())
	}
}

// objects finds the objects of one kind an event concerns, as requests for
// its controller: from the cache, by namespace and the field indexes.
type objects struct {
	client   client.Reader
	registry *reconcilers.Registry
	kind     reconcilers.Kind
	// stopped is set when the controller stops: a list then would start the
	// kind's informer again, for a CRD that is gone.
	stopped *atomic.Bool
}

// requests lists the objects of the kind matching opts (from the cache) and
// returns those keep accepts (all when keep is nil) as requests. A failed
// list is logged with what it was for: those objects are looked at again at
// their next requeue.
func (r objects) requests(ctx context.Context, why string, keep func(azurev1alpha1.Resource) bool, opts ...client.ListOption) []reconcile.Request {
	if r.stopped.Load() {
		return nil
	}
	list, err := r.registry.NewList(r.kind)
	if err != nil {
		return nil
	}
	if err := r.client.List(ctx, list, opts...); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing objects "+why+"; they are looked at again at their next requeue")
		return nil
	}
	var reqs []reconcile.Request
	_ = meta.EachListItem(list, func(item runtime.Object) error {
		if res := item.(azurev1alpha1.Resource); keep == nil || keep(res) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(res)})
		}
		return nil
	})
	return reqs
}

// allInNamespace lists every object of the kind in namespace ns, after a
// change there (why) that can deny what was Ready as well as admit what was
// denied: a Tenant change, a namespace's reconcile policy.
func (r objects) allInNamespace(ctx context.Context, ns, why string) []reconcile.Request {
	return r.requests(ctx, "in namespace "+ns+" after "+why, nil, client.InNamespace(ns))
}

// namespaceMetadataChanged passes the namespace updates that change its
// labels or annotations: the reconcile-policy annotation, and what policy
// constraints select on (namespaceSelector labels, the label or annotation
// that lets a namespace adopt). An object denied before the platform labelled
// its namespace goes ahead at once, without waiting for its next sync. A
// namespace created has no objects yet, and at start every object is
// reconciled anyway.
var namespaceMetadataChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) ||
			!maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
	},
}

// inNamespace enqueues every object of the kind in the event's namespace that
// is not Ready (an Identity appeared or changed).
func (r objects) inNamespace(ctx context.Context, o client.Object) []reconcile.Request {
	return r.requests(ctx, "after a change in namespace "+o.GetNamespace(), func(res azurev1alpha1.Resource) bool { return !reconcilers.IsReady(res) },
		client.InNamespace(o.GetNamespace()))
}

// identityChanged enqueues the objects an Identity event concerns: while the
// Identity is being deleted, every object it serves (a Ready one must stop
// being updated at once: the Identity serves deletions only); otherwise the
// objects of the namespace that are not Ready (it appeared or was fixed).
func (r objects) identityChanged(ctx context.Context, o client.Object) []reconcile.Request {
	if o.GetDeletionTimestamp().IsZero() {
		return r.inNamespace(ctx, o)
	}
	return r.requests(ctx, "served by Identity "+o.GetNamespace()+"/"+o.GetName()+", which is being deleted", func(res azurev1alpha1.Resource) bool {
		name, err := identity.IdentityNameFor(res)
		return err == nil && name == o.GetName()
	}, client.InNamespace(o.GetNamespace()))
}

// referencesIndex is the field index of a kind's objects by the Secrets and
// ConfigMaps they read ("Secret/name", "ConfigMap/name"), for kinds with
// Hooks.References.
const referencesIndex = "aztenant.references"

func referenceKey(kind, name string) string { return kind + "/" + name }

// referencing enqueues the objects of the kind that read o, a Secret or a
// ConfigMap of their namespace.
func (r objects) referencing(kind string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return r.requests(ctx, "that read the changed "+kind+" "+o.GetNamespace()+"/"+o.GetName(), nil,
			client.InNamespace(o.GetNamespace()), client.MatchingFields{referencesIndex: referenceKey(kind, o.GetName())})
	}
}

// ownerStateChanged passes the owner updates a child acts on: becoming Ready
// or not, its ARM ID, its deletion. Other writes (its own status progress, a
// finalizer, a resync that changed nothing) would reconcile every child, one
// ARM GET each, for nothing.
var ownerStateChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	o, okOld := e.ObjectOld.(azurev1alpha1.Resource)
	n, okNew := e.ObjectNew.(azurev1alpha1.Resource)
	if !okOld || !okNew {
		return true
	}
	return reconcilers.IsReady(o) != reconcilers.IsReady(n) ||
		o.AzureStatus().ID != n.AzureStatus().ID ||
		!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp())
}}

// dataChanged passes creations, deletions and updates of a Secret's or
// ConfigMap's data: a label or an owner reference changing reads nothing new.
var dataChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	switch o := e.ObjectOld.(type) {
	case *corev1.Secret:
		n, ok := e.ObjectNew.(*corev1.Secret)
		return !ok || !equality.Semantic.DeepEqual(o.Data, n.Data)
	case *corev1.ConfigMap:
		n, ok := e.ObjectNew.(*corev1.ConfigMap)
		return !ok || !equality.Semantic.DeepEqual(o.Data, n.Data) || !equality.Semantic.DeepEqual(o.BinaryData, n.BinaryData)
	}
	return true
}}

// childrenOfOwner enqueues the objects naming o as owner.
func (r objects) childrenOfOwner(ctx context.Context, o client.Object) []reconcile.Request {
	return r.requests(ctx, "whose owner "+o.GetNamespace()+"/"+o.GetName()+" changed", nil,
		client.InNamespace(o.GetNamespace()), client.MatchingFields{reconcilers.OwnerIndex: o.GetName()})
}

// onboardingChanged passes Tenant updates that change what onboarding reports
// (status.onboarding, the Onboarded condition): each is a change in Azure the
// namespaces' objects may have been waiting for.
var onboardingChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*tenancyv1alpha1.Tenant)
		n, ok2 := e.ObjectNew.(*tenancyv1alpha1.Tenant)
		if !ok1 || !ok2 || n.Spec.Onboarding == nil && o.Spec.Onboarding == nil {
			return false
		}
		return !equality.Semantic.DeepEqual(o.Status.Onboarding, n.Status.Onboarding) ||
			!equality.Semantic.DeepEqual(meta.FindStatusCondition(o.Status.Conditions, tenancyv1alpha1.ConditionOnboarded),
				meta.FindStatusCondition(n.Status.Conditions, tenancyv1alpha1.ConditionOnboarded))
	},
}

// tenantOnboarded enqueues the objects of the kind that are not Ready in the
// namespaces of a Tenant whose onboarding changed.
func (r objects) tenantOnboarded(ctx context.Context, o client.Object) []reconcile.Request {
	t, ok := o.(*tenancyv1alpha1.Tenant)
	if !ok {
		return nil
	}
	var reqs []reconcile.Request
	for _, ns := range t.Status.Namespaces {
		reqs = append(reqs, r.requests(ctx, "in namespace "+ns+" after Tenant "+t.Name+"'s onboarding changed",
			func(res azurev1alpha1.Resource) bool { return !reconcilers.IsReady(res) }, client.InNamespace(ns))...)
	}
	return reqs
}
