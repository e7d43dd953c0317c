package operator_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/controllers"
)

// --crd-management=tenants: a kind the pattern offers becomes a CRD when a
// Tenant names it, and is served without a restart; a kind no Tenant names
// any more keeps its CRD while objects of it remain, and loses it, with an
// event, once they are gone. Kinds offered but named by none, and CRDs the
// operator did not apply, are never installed or removed.
func TestTenantsActivateKinds(t *testing.T) {
	t.Parallel() // a control plane of its own: beside the package's other tests
	env := testenv.New(t, testenv.WithoutCRDs())
	installCRDs(t, env, crdsOf(t, func(gk schema.GroupKind) bool { return slices.Contains(crdinstall.CoreGroups, gk.Group) }))
	// Installed out of band (no digest annotation): never removed.
	ficGK := schema.GroupKind{Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "FederatedIdentityCredential"}
	installCRDs(t, env, crdsOf(t, func(gk schema.GroupKind) bool { return gk == ficGK }))

	offered, err := crdinstall.ParsePattern("resources.aztenant.io/*;managedidentity.aztenant.io/*;storage.aztenant.io/StorageAccount")
	if err != nil {
		t.Fatal(err)
	}
	cfg := stacktest.DefaultConfig()
	cfg.Kinds, cfg.ActivateKinds, cfg.KindsRecheck = &offered, true, 100*time.Millisecond
	const ns = "act"
	s := stacktest.NewOn(t, env, cfg, logr.Logger{}, ns)
	ctx := t.Context()
	rgGK := resourcesv1alpha1.ResourceGroupGroupKind
	uaiGK := schema.GroupKind{Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "UserAssignedIdentity"}
	const (
		rgCRD  = "resourcegroups.resources.aztenant.io"
		uaiCRD = "userassignedidentities.managedidentity.aztenant.io"
		saCRD  = "storageaccounts.storage.aztenant.io"
	)
	crdExists := func(name string) bool {
		err := s.Client.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	event := func(reason, crd string) *eventsv1.Event {
		var evs eventsv1.EventList
		if err := s.Client.List(ctx, &evs, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			t.Fatal(err)
		}
		for i, e := range evs.Items {
			if e.Reason == reason && e.Regarding.Name == crd {
				return &evs.Items[i]
			}
		}
		return nil
	}
	setKinds := func(kinds ...string) {
		t.Helper()
		var tn tenancyv1alpha1.Tenant
		if err := s.Client.Get(ctx, client.ObjectKey{Name: ns}, &tn); err != nil {
			t.Fatal(err)
		}
		tn.Spec.Kinds = kinds
		if err := s.Client.Update(ctx, &tn); err != nil {
			t.Fatal(err)
		}
	}

	// The stack's Tenant names no kind (it allows every one): nothing is installed.
	if crdExists(rgCRD) || crdExists(uaiCRD) {
		t.Fatal("a kind's CRD installed while no Tenant names it")
	}
	setKinds("ResourceGroup", "managedidentity.aztenant.io/UserAssigned*")
	stacktest.Until(t, "ResourceGroup and UserAssignedIdentity served", func() bool {
		served := s.Parts.Kinds.Served()
		return slices.Contains(served, rgGK) && slices.Contains(served, uaiGK)
	})
	// Events are recorded a little after what they report.
	stacktest.Until(t, "event "+crdinstall.EventCRDInstalled, func() bool { return event(crdinstall.EventCRDInstalled, rgCRD) != nil })
	if e := event(crdinstall.EventCRDInstalled, rgCRD); !strings.Contains(e.Note, "Tenant "+ns) {
		t.Errorf("event %s on %s: %+v, want one naming Tenant %s", crdinstall.EventCRDInstalled, rgCRD, e, ns)
	}
	if crdExists(saCRD) {
		t.Error("StorageAccount installed: offered, but no Tenant names it")
	}
	rg := stacktest.ResourceGroup(ns, ns+"-app", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	uai := &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg.Name}, Location: stacktest.Location},
	}
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// No longer named, but an object remains: the CRD stays, and says why.
	setKinds("ResourceGroup")
	stacktest.Until(t, "event "+crdinstall.EventCRDKept, func() bool { return event(crdinstall.EventCRDKept, uaiCRD) != nil })
	if e := event(crdinstall.EventCRDKept, uaiCRD); !strings.Contains(e.Note, ns+"/app") {
		t.Errorf("event %s: %q, want it to name the object left, %s/app", crdinstall.EventCRDKept, e.Note, ns)
	}
	if !crdExists(uaiCRD) {
		t.Fatal("CRD removed while an object of its kind remains")
	}
	// Its object deleted (left in Azure: its Tenant no longer allows the kind,
	// so the operator would refuse to delete it there): the CRD goes, and
	// says so; what is named stays.
	if err := s.Client.Get(ctx, client.ObjectKeyFromObject(uai), uai); err != nil {
		t.Fatal(err)
	}
	uai.Annotations = map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyDetachOnDelete)}
	if err := s.Client.Update(ctx, uai); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Delete(ctx, uai); err != nil {
		t.Fatal(err)
	}
	stacktest.Until(t, uai.Name+" deleted", func() bool { return s.Gone(uai) })
	stacktest.Until(t, uaiCRD+" removed", func() bool { return !crdExists(uaiCRD) })
	stacktest.Until(t, "event "+crdinstall.EventCRDRemoved, func() bool { return event(crdinstall.EventCRDRemoved, uaiCRD) != nil })
	// Its controller and informer stop with it.
	stacktest.Until(t, "event "+controllers.EventKindRetired, func() bool { return event(controllers.EventKindRetired, uaiCRD) != nil })
	if slices.Contains(s.Parts.Kinds.Served(), uaiGK) {
		t.Errorf("UserAssignedIdentity still served once its CRD was removed")
	}
	if !crdExists(rgCRD) || !crdExists("federatedidentitycredentials.managedidentity.aztenant.io") {
		t.Error("a CRD removed that a Tenant names, or that was installed out of band")
	}
	// Named again: installed again.
	setKinds("ResourceGroup", "UserAssignedIdentity")
	stacktest.Until(t, uaiCRD+" installed again", func() bool { return crdExists(uaiCRD) })
	rg2 := stacktest.ResourceGroup(ns, ns+"-after", nil, nil)
	s.Create(t, rg2)
	s.WaitReady(t, rg2, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
}
