package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aztenant/aztenant/reconcilers"
)

// Watch the CRDs' metadata, and read the one that changed, to serve a kind
// whose CRD is installed while the operator runs:
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// crdGVK is what the CRD watch caches: metadata only (PartialObjectMetadata).
var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// discoveryLag is how soon a CRD that is Established, but not yet in the
// API server's discovery, is looked at again.
const discoveryLag = 200 * time.Millisecond

// KindServer runs the controllers of the kinds whose CRD is installed, and
// only those: a kind whose CRD is missing has no controller, no watch, no
// informer and no index (the chart's crds.pattern installs a selection).
// ServeInstalled starts those installed when the operator starts; watching
// the CRDs (metadata only, SetupWithManager), it starts a kind's controller
// once its CRD is installed and Established later, on the running manager,
// and starts the watches of the served kinds that may name it as owner.
//
// A CRD deleted while its kind is served (the tenants mode's Activator
// retires it, or someone deletes it) stops the kind's controller and its
// informer, the watches of its objects as owners, and is recorded as an
// event on the CRD: an unused kind costs nothing again. Installed again, the
// kind is served again by a new controller.
type KindServer struct {
	Manager  ctrl.Manager
	Registry *reconcilers.Registry
	// New returns the reconciler of a kind, to Build with Options.
	New      func(reconcilers.Kind) *reconcilers.Reconciler
	Options  Options
	Recorder events.EventRecorder
	// Selected, when set, narrows the kinds served to those it selects
	// (--crd-pattern): a CRD left installed after the pattern dropped its
	// kind is not served. crdName is the CRD's name.
	Selected func(gk schema.GroupKind, crdName string) bool

	mu          sync.Mutex
	controllers map[schema.GroupKind]*Controller
	crds        map[string]schema.GroupKind // CRD name of a served kind
	retired     map[schema.GroupKind]bool   // kinds served once, whose controller stopped
	watches     *sharedWatches
}

func (s *KindServer) init() {
	if s.controllers == nil {
		s.controllers = map[schema.GroupKind]*Controller{}
		s.crds = map[string]schema.GroupKind{}
		s.retired = map[schema.GroupKind]bool{}
		s.watches = newSharedWatches(s.Manager.GetCache())
	}
}

// ServeInstalled starts the controllers of the kinds whose CRD the API
// server serves now (before or after the manager starts).
func (s *KindServer) ServeInstalled(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	log := ctrl.LoggerFrom(ctx).WithName("kinds")
	// The groups that have CRDs, from one list of their metadata: a kind of
	// another group is not installed, without a miss of the REST mapper
	// (each a discovery request) to say so.
	crds := &metav1.PartialObjectMetadataList{}
	crds.SetGroupVersionKind(crdGVK.GroupVersion().WithKind("CustomResourceDefinitionList"))
	if err := s.Manager.GetAPIReader().List(ctx, crds); err != nil {
		return fmt.Errorf("list CRDs: %w", err)
	}
	groups := map[string]bool{}
	for _, c := range crds.Items {
		_, group, _ := strings.Cut(c.Name, ".")
		groups[group] = true
	}
	var missing []string
	for _, k := range s.Registry.Kinds() {
		gvk := s.Registry.GroupVersionKind(k)
		if s.controllers[gvk.GroupKind()] != nil {
			continue
		}
		if !groups[gvk.Group] {
			missing = append(missing, gvk.GroupKind().String())
			continue
		}
		mapping, err := s.Manager.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			missing = append(missing, gvk.GroupKind().String())
			continue
		} else if err != nil {
			return fmt.Errorf("kind %s: %w", gvk.GroupKind(), err)
		}
		if s.Selected != nil && !s.Selected(gvk.GroupKind(), mapping.Resource.Resource+"."+gvk.Group) {
			continue // installed, but the CRD pattern leaves it out
		}
		if err := s.serveLocked(ctx, k, mapping); err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		log.Info("CRDs not installed: those kinds are served once their CRD is installed", "kinds", len(missing), "served", len(s.controllers))
		log.V(1).Info("kinds without CRD", "kinds", strings.Join(missing, ", "))
	}
	return nil
}

// serveLocked builds the controller of k, then the owner watches of the
// served kinds that may name k as owner. s.mu is held.
func (s *KindServer) serveLocked(ctx context.Context, k reconcilers.Kind, mapping *meta.RESTMapping) error {
	gk := s.Registry.GroupVersionKind(k).GroupKind()
	o := s.Options
	o.Again, o.watches = s.retired[gk], s.watches
	ctl, err := Build(ctx, s.Manager, s.New(k), o)
	if err != nil {
		return fmt.Errorf("kind %s: %w", gk, err)
	}
	s.controllers[gk] = ctl
	s.crds[mapping.Resource.Resource+"."+mapping.Resource.Group] = gk
	for _, other := range s.controllers {
		if err := other.OwnerServed(gk); err != nil {
			return fmt.Errorf("kind %s: watch owner kind %s: %w", s.Registry.GroupVersionKind(other.objs.kind).GroupKind(), gk, err)
		}
	}
	return nil
}

// Served lists the kinds whose controller runs.
func (s *KindServer) Served() []schema.GroupKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]schema.GroupKind, 0, len(s.controllers))
	for _, k := range s.Registry.Kinds() {
		if gk := s.Registry.GroupVersionKind(k).GroupKind(); s.controllers[gk] != nil {
			out = append(out, gk)
		}
	}
	return out
}

// WatchesOwner reports whether the controller of child watches the objects
// of kind owner (child's objects may name one as owner, and owner is served).
func (s *KindServer) WatchesOwner(child, owner schema.GroupKind) bool {
	s.mu.Lock()
	c := s.controllers[child]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.owners[owner]
}

// SetupWithManager watches the metadata of the CRDs of the registered kinds'
// groups (one worker: serving is serial).
func (s *KindServer) SetupWithManager(mgr ctrl.Manager) error {
	s.mu.Lock()
	s.init()
	s.mu.Unlock()
	groups := map[string]bool{}
	for _, k := range s.Registry.Kinds() {
		groups[s.Registry.GroupVersionKind(k).Group] = true
	}
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool {
		_, group, _ := strings.Cut(o.GetName(), ".")
		return groups[group]
	})
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	return ctrl.NewControllerManagedBy(mgr).
		Named("customresourcedefinitions").
		For(crd, builder.WithPredicates(ours)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(s)
}

// Reconcile serves the kind of a CRD installed and Established, or retires
// a served kind whose CRD was deleted.
func (s *KindServer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	// The cached metadata says whether it exists: a served kind's CRD needs
	// no more (at start, every CRD comes by).
	md := &metav1.PartialObjectMetadata{}
	md.SetGroupVersionKind(crdGVK)
	err := s.Manager.GetClient().Get(ctx, client.ObjectKey{Name: req.Name}, md)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		if _, ok := s.crds[req.Name]; ok {
			return reconcile.Result{}, nil
		}
		// Not served yet. At start every CRD comes by: one of a kind this
		// operator would not serve (not its kind, or one the CRD pattern
		// leaves out) is known by its name through the REST mapper's
		// discovery, without reading the whole CRD (hundreds of kilobytes of
		// schema for a generated kind).
		if gk, ok := s.kindOf(req.Name); ok && !s.wantedLocked(gk, req.Name) {
			return reconcile.Result{}, nil
		}
		// The whole CRD, read once (not cached), has its kind and conditions.
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(crdGVK)
		if err = s.Manager.GetAPIReader().Get(ctx, client.ObjectKey{Name: req.Name}, crd); err == nil {
			return s.serveCRD(ctx, crd)
		}
	}
	if apierrors.IsNotFound(err) {
		if gk, ok := s.crds[req.Name]; ok {
			return reconcile.Result{}, s.retireLocked(ctx, req.Name, gk)
		}
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, err
}

// EventKindRetired is the event on a served kind's CRD once it is deleted
// and the kind's controller stopped.
const EventKindRetired = "KindRetired"

// retireLocked stops serving gk, whose CRD crdName was deleted: its
// controller and informer stop, the controllers of its children forget their
// watch of it. s.mu is held.
func (s *KindServer) retireLocked(ctx context.Context, crdName string, gk schema.GroupKind) error {
	log := ctrl.LoggerFrom(ctx).WithValues("crd", crdName, "kind", gk.String())
	stopCtx, cancel := context.WithTimeout(ctx, retireWait)
	defer cancel()
	if err := s.controllers[gk].Stop(stopCtx); err != nil {
		return fmt.Errorf("stop the controller of kind %s: %w", gk, err)
	}
	delete(s.controllers, gk)
	delete(s.crds, crdName)
	s.retired[gk] = true
	s.Registry.MarkNotServed(gk)
	for _, other := range s.controllers {
		other.OwnerRetired(gk)
	}
	msg := fmt.Sprintf("CRD %s deleted: kind %s is no longer served (its controller and informer stopped); it is served again once its CRD is installed", crdName, gk)
	log.Info(msg, "served", len(s.controllers))
	if s.Recorder != nil {
		ref := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: crdName}}
		ref.SetGroupVersionKind(crdGVK)
		s.Recorder.Eventf(ref, nil, corev1.EventTypeNormal, EventKindRetired, "Retire", "%s", msg)
	}
	return nil
}

// retireWait bounds the wait for a retired kind's workers to finish what they
// were doing (their context is cancelled: ARM calls in flight end at once).
const retireWait = time.Minute

// serveCRD serves the kind of crd once it is Established. s.mu is held.
func (s *KindServer) serveCRD(ctx context.Context, crd *unstructured.Unstructured) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("crd", crd.GetName())
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	gk := schema.GroupKind{Group: group, Kind: kind}
	k, ok := s.Registry.Lookup(gk)
	if !ok {
		log.V(1).Info("CRD of a kind this operator does not know: ignored", "kind", gk.String())
		return reconcile.Result{}, nil
	}
	if s.controllers[gk] != nil {
		return reconcile.Result{}, nil // under another CRD name: cannot be
	}
	if s.Selected != nil && !s.Selected(gk, crd.GetName()) {
		log.V(1).Info("CRD of a kind the CRD pattern leaves out: not served", "kind", gk.String())
		return reconcile.Result{}, nil
	}
	if !established(crd) {
		return reconcile.Result{}, nil // its status update comes as an event
	}
	gvk := s.Registry.GroupVersionKind(k)
	if !servesVersion(crd, gvk.Version) {
		log.Info("CRD does not serve the version this operator reads: kind not served", "kind", gk.String(), "version", gvk.Version)
		return reconcile.Result{}, nil
	}
	mapping, err := s.Manager.GetRESTMapper().RESTMapping(gk, gvk.Version)
	if meta.IsNoMatchError(err) {
		// Established, but discovery (which the REST mapper reads again on
		// a miss) lags it a little.
		log.V(1).Info("CRD Established but not in discovery yet", "kind", gk.String(), "version", gvk.Version)
		return reconcile.Result{RequeueAfter: discoveryLag}, nil
	} else if err != nil {
		return reconcile.Result{}, err
	}
	if err := s.serveLocked(ctx, k, mapping); err != nil {
		return reconcile.Result{}, err
	}
	log.Info("CRD installed: kind served", "kind", gk.String(), "served", len(s.controllers))
	return reconcile.Result{}, nil
}

// kindOf is the kind of the CRD named crdName (plural.group) by the REST mapper,
// which knows it once discovery serves it; false when it does not yet.
func (s *KindServer) kindOf(crdName string) (schema.GroupKind, bool) {
	plural, group, _ := strings.Cut(crdName, ".")
	gvk, err := s.Manager.GetRESTMapper().KindFor(schema.GroupVersionResource{Group: group, Resource: plural})
	if err != nil {
		return schema.GroupKind{}, false
	}
	return gvk.GroupKind(), true
}

// wantedLocked reports whether the kind gk, whose CRD is crdName, is one this operator
// knows, does not serve yet, and the CRD pattern selects. s.mu is held.
func (s *KindServer) wantedLocked(gk schema.GroupKind, crdName string) bool {
	if _, ok := s.Registry.Lookup(gk); !ok || s.controllers[gk] != nil {
		return false
	}
	return s.Selected == nil || s.Selected(gk, crdName)
}

// established reports whether a CRD's Established condition is True.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// servesVersion reports whether a CRD serves version v.
func servesVersion(crd *unstructured.Unstructured, v string) bool {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, e := range versions {
		if m, ok := e.(map[string]any); ok && m["name"] == v && m["served"] == true {
			return true
		}
	}
	return false
}
