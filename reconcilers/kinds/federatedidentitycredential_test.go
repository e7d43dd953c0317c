package kinds_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// The self-service story: a namespace creates an identity and a federated
// credential trusting its provisioner ServiceAccount through aztenant, and an
// Identity naming that account and the new client ID then exchanges tokens as
// the new identity,
// which the operator uses for resources annotated with it. The credential
// waits for its identity, is written once, rewritten once on a change, not at
// all on a resync, and deleted in Azure with its object.
func TestFederatedIdentityCredentialSelfService(t *testing.T) {
	t.Parallel()
	const ns = "fic"
	s := newStack(t, ns)
	ctx := t.Context()

	fic := &managedidentityv1alpha1.FederatedIdentityCredential{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "trust-app"},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
			Owner:  &azurev1alpha1.OwnerReference{Name: "fic-app"},
			Issuer: s.Env.IssuerURL, Subject: "system:serviceaccount:fic:" + identity.ProvisionerServiceAccount,
		},
	}
	s.Create(t, fic)
	s.WaitReady(t, fic, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)
	if len(fic.Spec.Audiences) != 1 || fic.Spec.Audiences[0] != identity.TokenAudience {
		t.Errorf("audiences defaulted to %v", fic.Spec.Audiences)
	}
	path := "/federatedIdentityCredentials/trust-app"
	if calls := s.ARMCalls(path); len(calls) != 0 {
		t.Fatalf("ARM calls before the identity is Ready: %s", methods(calls))
	}

	s.Create(t, resourceGroup(ns, "fic-rg", nil, nil))
	uai := userAssignedIdentity(ns, "fic-app", "fic-rg")
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, fic, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got := methods(s.ARMCalls(path)); !createdOnce(got) {
		t.Fatalf("create made %q, want \"GET PUT\"", got)
	}
	ficID := identityID("fic-rg", "fic-app") + "/federatedIdentityCredentials/trust-app"
	if !strings.EqualFold(fic.Status.ID, ficID) {
		t.Errorf("status.id %q, want %q", fic.Status.ID, ficID)
	}

	// The account the credential trusts now works as the identity too.
	app := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount,
			ClientID: uai.Status.ClientID, TenantID: uai.Status.TenantID, SubscriptionID: subID}}
	s.Create(t, app)
	until(t, "Identity app exchanged a token", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(app), app))
		c := meta.FindStatusCondition(app.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	if app.Status.PrincipalID != uai.Status.PrincipalID {
		t.Fatalf("the Identity acts as %s, want the new identity %s", app.Status.PrincipalID, uai.Status.PrincipalID)
	}
	// A resource annotated with it is reconciled as the new identity, which
	// has no role yet: Azure refuses it by name.
	rg := resourceGroup(ns, "fic-used", map[string]string{identity.AnnotationIdentity: "app"}, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionFalse, reconcilers.ReasonAuthorizationFailed)
	for _, c := range s.ARMCalls("/resourceGroups/fic-used") {
		if c.PrincipalID != uai.Status.PrincipalID {
			t.Errorf("%s by %s, want the new identity %s", c.Method, c.PrincipalID, uai.Status.PrincipalID)
		}
	}

	// A changed subject is one more PUT; a resync none.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(fic), fic))
	fic.Spec.Subject = "system:serviceaccount:fic:worker"
	must(t, s.Client.Update(ctx, fic))
	s.WaitReady(t, fic, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got := s.Settled(t, path, 4); strings.Count(got, "PUT") != 2 {
		t.Errorf("a subject change made %q in all, want one more GET and PUT", got)
	}
	if sub := s.AzureBody(t, ficID)["properties"].(map[string]any)["subject"]; sub != "system:serviceaccount:fic:worker" {
		t.Errorf("subject in Azure %v", sub)
	}
	s.Touch(t, fic, "1")
	if got := s.Settled(t, path, 5); strings.Count(got, "PUT") != 2 {
		t.Errorf("a resync made %q in all, want one more GET and no PUT", got)
	}

	must(t, s.Client.Delete(ctx, fic))
	until(t, "credential object gone", func() bool { return s.Gone(fic) })
	if _, err := s.Emu.Resource(ficID); err == nil {
		t.Error("the credential still exists in Azure")
	}
}

// Several credentials of one identity applied at once: Azure refuses writes
// that overlap (409 ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity,
// emulated with a 100 ms write), and the operator retries them within seconds
// rather than after the minute other conflicts wait.
func TestFederatedCredentialsOfOneIdentityAtOnce(t *testing.T) {
	t.Parallel()
	const ns = "ficmany"
	s := newStack(t, ns)
	s.Create(t, resourceGroup(ns, "ficmany-rg", nil, nil))
	uai := userAssignedIdentity(ns, "ficmany-app", "ficmany-rg")
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	var fics []*managedidentityv1alpha1.FederatedIdentityCredential
	for i := range 6 {
		fic := &managedidentityv1alpha1.FederatedIdentityCredential{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("trust-%d", i)},
			Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
				Owner:  &azurev1alpha1.OwnerReference{Name: "ficmany-app"},
				Issuer: s.Env.IssuerURL, Subject: fmt.Sprintf("system:serviceaccount:ficmany:app-%d", i),
			},
		}
		s.Create(t, fic)
		fics = append(fics, fic)
	}
	for _, fic := range fics {
		s.WaitReady(t, fic, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	}
	refused := 0
	for _, c := range s.ARMCalls("") {
		if c.ErrorCode == "ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity" {
			refused++
		}
	}
	t.Logf("%d credential writes refused as concurrent, all 6 Ready", refused)
}
