package sharding

import (
	"context"
	"fmt"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// LabellerCacheOptions are the cache options of the manager the Labeller
// runs in: objects without the bucket label only, CRDs' metadata all.
func LabellerCacheOptions() cache.Options {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	return cache.Options{
		DefaultTransform:     cache.TransformStripManagedFields(),
		DefaultLabelSelector: Unlabelled(),
		ByObject:             map[client.Object]cache.ByObject{crd: {Label: labels.Everything()}},
	}
}

// Labeller writes LabelBucket on the aztenant namespaced objects that lack
// it, for the buckets Owns accepts. Its manager's cache must be made with
// LabellerCacheOptions.
type Labeller struct {
	// Client patches (the manager's); APIReader reads whole CRDs.
	Client    client.Client
	APIReader client.Reader
	Cache     cache.Cache
	// Owns says whether this replica labels bucket b now.
	Owns func(b int) bool
	// Changes returns a channel closed when Owns may answer differently:
	// the unlabelled objects cached are looked at again.
	Changes func() <-chan struct{}
	// Groups accepts the API groups to label (default: *.aztenant.io).
	Groups func(group string) bool
	// Selected, when set, narrows the kinds labelled to those it accepts
	// (the operator's --crd-pattern: kinds not served need no label).
	Selected func(gk schema.GroupKind, crdName string) bool

	mu      sync.Mutex
	watched map[schema.GroupVersionKind]bool
	ctl     controller.TypedController[labelRequest]
}

type labelRequest struct {
	GVK schema.GroupVersionKind
	types.NamespacedName
}

// SetupWithManager registers the label controller and the CRD watch that
// adds a metadata watch for each Established namespaced kind of Groups.
func (l *Labeller) SetupWithManager(mgr ctrl.Manager) error {
	if l.Groups == nil {
		l.Groups = func(g string) bool { return strings.HasSuffix(g, ".aztenant.io") }
	}
	l.watched = map[schema.GroupVersionKind]bool{}
	ctl, err := controller.NewTyped("shard-labeller", mgr, controller.TypedOptions[labelRequest]{
		Reconciler: reconcile.TypedFunc[labelRequest](l.label), MaxConcurrentReconciles: 4})
	if err != nil {
		return err
	}
	l.ctl = ctl
	if l.Changes != nil {
		if err := ctl.Watch(source.TypedFunc[labelRequest](func(ctx context.Context, q workqueue.TypedRateLimitingInterface[labelRequest]) error {
			go l.requeueOnChange(ctx, q)
			return nil
		})); err != nil {
			return err
		}
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool {
		_, group, _ := strings.Cut(o.GetName(), ".")
		return l.Groups(group)
	})
	return ctrl.NewControllerManagedBy(mgr).Named("shard-labeller-crds").
		For(crd, builder.WithPredicates(ours)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(reconcile.Func(l.crd))
}

// crd adds the metadata watch of an Established namespaced CRD's kind.
func (l *Labeller) crd(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(crdGVK)
	if err := l.APIReader.Get(ctx, req.NamespacedName, u); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
	if !l.Groups(group) || scope != string(apiextensionsv1.NamespaceScoped) || !established(u) ||
		(l.Selected != nil && !l.Selected(schema.GroupKind{Group: group, Kind: kind}, u.GetName())) {
		return reconcile.Result{}, nil
	}
	version := ""
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["served"] == true && (version == "" || m["storage"] == true) {
			version, _ = m["name"].(string)
		}
	}
	if version == "" {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, l.watch(ctx, schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

func (l *Labeller) watch(_ context.Context, gvk schema.GroupVersionKind) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watched[gvk] {
		return nil
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	enqueue := func(o *metav1.PartialObjectMetadata, q workqueue.TypedRateLimitingInterface[labelRequest]) {
		if _, ok := o.GetLabels()[LabelBucket]; !ok && l.Owns(Bucket(o.GetNamespace())) {
			q.Add(labelRequest{GVK: gvk, NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}})
		}
	}
	h := handler.TypedFuncs[*metav1.PartialObjectMetadata, labelRequest]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[labelRequest]) {
			enqueue(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[labelRequest]) {
			enqueue(e.ObjectNew, q)
		},
	}
	if err := l.ctl.Watch(source.TypedKind(l.Cache, obj, handler.TypedEventHandler[*metav1.PartialObjectMetadata, labelRequest](h))); err != nil {
		return fmt.Errorf("shard labeller: watch %s: %w", gvk, err)
	}
	l.watched[gvk] = true
	return nil
}

// requeueOnChange looks at every cached unlabelled object again whenever
// the buckets owned may have changed.
func (l *Labeller) requeueOnChange(ctx context.Context, q workqueue.TypedRateLimitingInterface[labelRequest]) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.Changes():
		}
		l.mu.Lock()
		gvks := make([]schema.GroupVersionKind, 0, len(l.watched))
		for gvk := range l.watched {
			gvks = append(gvks, gvk)
		}
		l.mu.Unlock()
		for _, gvk := range gvks {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := l.Cache.List(ctx, list); err != nil {
				continue
			}
			for _, o := range list.Items {
				if l.Owns(Bucket(o.Namespace)) {
					q.Add(labelRequest{GVK: gvk, NamespacedName: types.NamespacedName{Namespace: o.Namespace, Name: o.Name}})
				}
			}
		}
	}
}

// label patches the bucket label in; a merge patch, so nothing else of the
// object is touched, and one already labelled gets the same value.
func (l *Labeller) label(ctx context.Context, req labelRequest) (reconcile.Result, error) {
	b := Bucket(req.Namespace)
	if !l.Owns(b) {
		return reconcile.Result{}, nil // another replica's now
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(req.GVK)
	obj.SetNamespace(req.Namespace)
	obj.SetName(req.Name)
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, LabelBucket, BucketLabel(req.Namespace))
	err := l.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
	if apierrors.IsNotFound(err) {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, err
}
