package operator_test

import (
	"slices"
	"testing"

	"github.com/go-logr/logr"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/api"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/controllers"
)

// crdsOf returns the project's CRDs of the kinds keep says yes to (only those decoded:
// seconds of CPU under the race detector for all of them).
func crdsOf(t *testing.T, keep func(schema.GroupKind) bool) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	out, err := api.CRDsOf(func(gk schema.GroupKind, _ string) bool { return keep(gk) })
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no CRD selected")
	}
	return out
}

// installCRDs creates the CRDs and waits until discovery serves them.
func installCRDs(t *testing.T, env *testenv.Env, crds []*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: crds, Scheme: env.Scheme, MaxTime: testenv.CRDWait}); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
}

// The operator serves the kinds whose CRD is installed, and only those; a
// CRD installed while it runs is served without a restart (its kind's
// objects become Ready, its owner's changes reach them); one deleted stops
// being served (no controller, no informer, no watch on the API server) with
// an event on the CRD, and is served again once installed again.
func TestKindsServedAsTheirCRDsAreInstalled(t *testing.T) {
	t.Parallel() // a control plane of its own: beside the package's other tests
	env := testenv.New(t, testenv.WithoutCRDs())
	rgGK := resourcesv1alpha1.ResourceGroupGroupKind
	uaiGK := schema.GroupKind{Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "UserAssignedIdentity"}
	installCRDs(t, env, crdsOf(t, func(gk schema.GroupKind) bool {
		return gk.Group == "identity.aztenant.io" || gk.Group == "tenancy.aztenant.io" || gk == rgGK
	}))

	const ns = "kinds"
	s := stacktest.NewOn(t, env, stacktest.DefaultConfig(), logr.Logger{}, ns)
	if got := s.Parts.Kinds.Served(); !slices.Equal(got, []schema.GroupKind{rgGK}) {
		t.Fatalf("served at start: %v, want only %v (the one Azure kind installed)", got, rgGK)
	}
	rg := stacktest.ResourceGroup(ns, ns+"-app", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// Installed later: served by the same operator, no restart. A child kind
	// first, whose owner kind is not installed: it watches its owners once
	// their kind is served.
	ficGK := schema.GroupKind{Group: managedidentityv1alpha1.GroupVersion.Group, Kind: "FederatedIdentityCredential"}
	crdOf := func(gk schema.GroupKind) []*apiextensionsv1.CustomResourceDefinition {
		return crdsOf(t, func(g schema.GroupKind) bool { return g == gk })
	}
	installCRDs(t, env, crdOf(ficGK))
	stacktest.Until(t, "FederatedIdentityCredential served", func() bool { return slices.Contains(s.Parts.Kinds.Served(), ficGK) })
	if s.Parts.Kinds.WatchesOwner(ficGK, uaiGK) {
		t.Error("FederatedIdentityCredential watches UserAssignedIdentities, whose CRD is not installed")
	}
	uaiCRD := crdOf(uaiGK)
	installCRDs(t, env, uaiCRD)
	stacktest.Until(t, "UserAssignedIdentity served", func() bool { return slices.Contains(s.Parts.Kinds.Served(), uaiGK) })
	if !s.Parts.Kinds.WatchesOwner(ficGK, uaiGK) {
		t.Error("FederatedIdentityCredential does not watch UserAssignedIdentities once they are served")
	}
	if !s.Parts.Kinds.WatchesOwner(uaiGK, rgGK) {
		t.Error("UserAssignedIdentity does not watch its owners, ResourceGroups")
	}
	fic := &managedidentityv1alpha1.FederatedIdentityCredential{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trust"},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
			Owner:  &azurev1alpha1.OwnerReference{Name: "app"},
			Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":app",
		},
	}
	s.Create(t, fic)
	s.WaitReady(t, fic, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)
	uai := &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg.Name}, Location: stacktest.Location},
	}
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, fic, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got, want := s.Parts.Kinds.Served(), []schema.GroupKind{rgGK, uaiGK, ficGK}; !slices.Equal(got, want) {
		t.Errorf("served: %v, want %v", got, want)
	}

	// Deleted: the operator says so and goes on.
	for _, o := range []client.Object{fic, uai} {
		if err := s.Client.Delete(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		stacktest.Until(t, o.GetName()+" deleted", func() bool { return s.Gone(o) })
	}
	if err := s.Client.Delete(t.Context(), uaiCRD[0].DeepCopy()); err != nil {
		t.Fatal(err)
	}
	stacktest.Until(t, "event "+controllers.EventKindRetired+" on "+uaiCRD[0].Name, func() bool {
		var evs eventsv1.EventList
		if err := s.Client.List(t.Context(), &evs, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
			return e.Reason == controllers.EventKindRetired && e.Regarding.Name == uaiCRD[0].Name
		})
	})
	// Retired: its controller and informer stopped, and its children no longer watch it.
	if slices.Contains(s.Parts.Kinds.Served(), uaiGK) {
		t.Errorf("UserAssignedIdentity still served after its CRD was deleted: %v", s.Parts.Kinds.Served())
	}
	if s.Parts.Kinds.WatchesOwner(ficGK, uaiGK) {
		t.Error("FederatedIdentityCredential still watches UserAssignedIdentities, whose CRD is gone")
	}
	// Still serving what is installed.
	rg2 := stacktest.ResourceGroup(ns, ns+"-after", nil, nil)
	s.Create(t, rg2)
	s.WaitReady(t, rg2, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// Installed again: served again, by a new controller on a new informer (an informer
	// left running would refuse the new one's indexes), with its children's watches.
	installCRDs(t, env, crdOf(uaiGK))
	stacktest.Until(t, "UserAssignedIdentity served again", func() bool { return slices.Contains(s.Parts.Kinds.Served(), uaiGK) })
	if !s.Parts.Kinds.WatchesOwner(ficGK, uaiGK) {
		t.Error("FederatedIdentityCredential does not watch UserAssignedIdentities once they are served again")
	}
	uai2 := &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app2"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg2.Name}, Location: stacktest.Location},
	}
	s.Create(t, uai2)
	s.WaitReady(t, uai2, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
}
