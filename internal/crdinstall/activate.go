package crdinstall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aztenant/aztenant/api"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// RBAC of the tenants mode (--crd-management=tenants): the chart adds the
// delete of the offered CRDs, by name, to the create and update of the
// auto mode; the Tenants are read by the tenancy controllers' rules, the
// kinds' objects by the reconcilers'.

// Events of the tenants mode, on the CRD.
const (
	EventCRDInstalled = "CRDInstalled"
	EventCRDKept      = "CRDKept"
	EventCRDRemoved   = "CRDRemoved"
)

// Activator is the tenants mode: a kind that the pattern offers becomes a
// CRD once some Tenant's spec.kinds names it, and its CRD goes once no
// Tenant has named it for Unnamed and no object of it remains, each with an
// event on the CRD. A kind with no CRD costs the API server nothing, and
// the operator no informer or controller (the KindServer serves a kind once
// its CRD is Established). A Tenant with an empty spec.kinds allows every
// kind that is installed but names none: it installs nothing.
//
// It only removes CRDs an operator applied (they carry DigestAnnotation),
// never one installed out of band, and never one with objects left: the
// API server deletes a CRD's objects with it. An object created in the
// moment between the check and the deletion goes with the CRD, and its
// Azure resource stays (deleting a CRD never deletes Azure resources:
// reconcilers/delete.go).
type Activator struct {
	// Client reads the Tenants (cached).
	Client client.Client
	// Direct writes the CRDs and lists the kinds' objects (not cached).
	Direct client.Client
	// Offered is what may be installed (--crd-pattern).
	Offered Pattern
	// Names reports whether a Tenant's spec.kinds names gk (tenancy.KindsName).
	Names    func(kinds []string, gk schema.GroupKind) bool
	Recorder events.EventRecorder
	// Unnamed is how long a kind is named by no Tenant before its CRD is
	// removed; zero removes it at once.
	Unnamed time.Duration
	// Recheck is how often a kind that no Tenant names, whose objects
	// remain, is looked at again (a minute when zero).
	Recheck time.Duration
	// Version is this operator's version, as Installer's.
	Version string

	mu        sync.Mutex
	available []api.CRDName
	digests   map[string]string    // CRD name -> digest of the embedded CRD
	unnamed   map[string]time.Time // CRD name -> since when no Tenant names it
	kept      map[string]bool      // CRDs reported kept for their objects
	now       func() time.Time
}

// activationKey is the one key the Activator's work queue holds: every
// change looks at every kind.
var activationKey = reconcile.Request{NamespacedName: client.ObjectKey{Name: "kinds"}}

// SetupWithManager runs the Activator on the changes of Tenants and of the
// CRDs' metadata (a CRD deleted by hand while named is installed again).
func (a *Activator) SetupWithManager(mgr ctrl.Manager) error {
	names, err := api.CRDNames()
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.available = names
	a.digests = map[string]string{}
	a.unnamed = map[string]time.Time{}
	a.kept = map[string]bool{}
	if a.now == nil {
		a.now = time.Now
	}
	a.mu.Unlock()
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{activationKey}
	})
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool { return strings.HasSuffix(o.GetName(), ".aztenant.io") })
	return ctrl.NewControllerManagedBy(mgr).
		Named("kind-activation").
		Watches(&tenancyv1alpha1.Tenant{}, one, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(crd, one, builder.WithPredicates(ours)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(a)
}

// Reconcile installs the CRDs of the kinds some Tenant names and removes
// those of the kinds none names that have no object left.
func (a *Activator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	log := ctrl.LoggerFrom(ctx).WithName("activation")
	var tenants tenancyv1alpha1.TenantList
	if err := a.Client.List(ctx, &tenants); err != nil {
		return reconcile.Result{}, fmt.Errorf("list Tenants: %w", err)
	}
	namedBy := map[string][]string{} // CRD name -> Tenants naming its kind
	for _, c := range a.available {
		if !a.Offered.Selects(c.GroupKind, c.Name) {
			continue
		}
		if core(c.Group) {
			namedBy[c.Name] = nil
			continue
		}
		for i := range tenants.Items {
			t := &tenants.Items[i]
			if t.DeletionTimestamp == nil && a.Names(t.Spec.Kinds, c.GroupKind) {
				namedBy[c.Name] = append(namedBy[c.Name], t.Name)
			}
		}
	}
	existing := &metav1.PartialObjectMetadataList{}
	existing.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
	if err := a.Direct.List(ctx, existing); err != nil {
		return reconcile.Result{}, fmt.Errorf("list CRDs: %w", err)
	}
	installed := map[string]*metav1.PartialObjectMetadata{}
	for i := range existing.Items {
		installed[existing.Items[i].Name] = &existing.Items[i]
	}
	if err := a.install(ctx, namedBy, installed); err != nil {
		return reconcile.Result{}, err
	}
	var next time.Duration
	for _, c := range a.available {
		if _, named := namedBy[c.Name]; named {
			delete(a.unnamed, c.Name)
			delete(a.kept, c.Name)
			continue
		}
		have := installed[c.Name]
		if have == nil || have.Annotations[DigestAnnotation] == "" || have.DeletionTimestamp != nil || !a.Offered.Selects(c.GroupKind, c.Name) {
			continue // absent, installed out of band, going, or not offered (kept, not served)
		}
		wait, err := a.retire(ctx, c, have)
		if err != nil {
			log.Error(err, "CRD of a kind no Tenant names not removed", "crd", c.Name)
			wait = a.recheck()
		}
		if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
	}
	return reconcile.Result{RequeueAfter: next}, nil
}

// install applies the CRDs of the named kinds that are missing or differ
// from the embedded ones. Only those are decoded: the digests of the others
// are known from an earlier round.
func (a *Activator) install(ctx context.Context, namedBy map[string][]string, installed map[string]*metav1.PartialObjectMetadata) error {
	var need []string
	for name := range namedBy {
		have := installed[name]
		if have == nil || have.DeletionTimestamp == nil && (a.digests[name] == "" || have.Annotations[DigestAnnotation] != a.digests[name]) {
			need = append(need, name)
		}
	}
	if len(need) == 0 {
		return nil
	}
	crds, err := api.CRDsOf(func(_ schema.GroupKind, name string) bool { return slices.Contains(need, name) })
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if a.digests[crd.Name], err = Digest(crd); err != nil {
			return fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
	}
	res, err := Installer{Client: a.Direct, Version: a.Version}.Install(ctx, crds)
	for _, name := range res.Created {
		tenants := namedBy[name]
		sort.Strings(tenants)
		a.event(name, corev1.EventTypeNormal, EventCRDInstalled, "Install",
			fmt.Sprintf("kind installed: Tenant %s names it in spec.kinds", strings.Join(tenants, ", ")))
	}
	return err
}

// retire removes the CRD c, which no Tenant names, once that has lasted
// Unnamed and no object of its kind remains; it returns when to look again.
func (a *Activator) retire(ctx context.Context, c api.CRDName, have *metav1.PartialObjectMetadata) (time.Duration, error) {
	since, ok := a.unnamed[c.Name]
	if !ok {
		since = a.now()
		a.unnamed[c.Name] = since
	}
	if left := since.Add(a.Unnamed).Sub(a.now()); left > 0 {
		return left, nil
	}
	mapping, err := a.Direct.RESTMapper().RESTMapping(c.GroupKind)
	if meta.IsNoMatchError(err) {
		return a.recheck(), nil // not served yet: its objects cannot be listed
	} else if err != nil {
		return 0, err
	}
	objs := &metav1.PartialObjectMetadataList{}
	objs.SetGroupVersionKind(mapping.GroupVersionKind.GroupVersion().WithKind(mapping.GroupVersionKind.Kind + "List"))
	if err := a.Direct.List(ctx, objs, client.Limit(1)); err != nil {
		return 0, fmt.Errorf("list %s: %w", c.GroupKind, err)
	}
	if len(objs.Items) > 0 {
		if !a.kept[c.Name] {
			a.kept[c.Name] = true
			one := objs.Items[0]
			a.event(c.Name, corev1.EventTypeNormal, EventCRDKept, "Remove",
				fmt.Sprintf("no Tenant names kind %s in spec.kinds, but objects of it remain (%s/%s among them): the CRD stays until they are deleted", c.GroupKind, one.Namespace, one.Name))
		}
		return a.recheck(), nil
	}
	uid, rv := have.UID, have.ResourceVersion
	err = a.Direct.Delete(ctx, have, client.Preconditions{UID: &uid, ResourceVersion: &rv})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return a.recheck(), nil // gone, or changed since the list: looked at again
	} else if err != nil {
		return 0, fmt.Errorf("delete CRD %s: %w", c.Name, err)
	}
	delete(a.unnamed, c.Name)
	delete(a.kept, c.Name)
	ctrl.LoggerFrom(ctx).Info("CRD removed: no Tenant names its kind and no object of it remains", "crd", c.Name)
	a.event(c.Name, corev1.EventTypeNormal, EventCRDRemoved, "Remove",
		fmt.Sprintf("no Tenant names kind %s in spec.kinds and no object of it remains: CRD removed; it is installed again when a Tenant names the kind", c.GroupKind))
	return 0, nil
}

func (a *Activator) recheck() time.Duration {
	if a.Recheck > 0 {
		return a.Recheck
	}
	return time.Minute
}

func (a *Activator) event(crdName, kind, reason, action, msg string) {
	if a.Recorder == nil {
		return
	}
	ref := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: crdName}}
	ref.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	a.Recorder.Eventf(ref, nil, kind, reason, action, "%s", msg)
}

func core(group string) bool { return slices.Contains(CoreGroups, group) }
