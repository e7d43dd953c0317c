package onboarding_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// A namespace onboarded before the provisioner account was reserved: its
// managed identity trusts the ServiceAccount "azure" (then the default, which
// any namespace editor could mint tokens for), which onboarding created with
// the Identity naming it. After the upgrade onboarding moves the federated
// credential to the reserved account, points the Identity at it and deletes
// the old account, keeping the same managed identity (so its roles and
// everything granted to it stay), and says why the old field is ignored.
func TestMigrateFromTheAzureServiceAccount(t *testing.T) {
	w := newWorld(t, "mg-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	ns, tenant := "mg-a", "mg"
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})

	// What the previous version left: in Azure, the identity trusting
	// <ns>:azure; in the cluster, the account and Identity, all recorded.
	w.createRG(onboarding.DefaultIdentityResourceGroup)
	if err := w.createUAMI(w.fixture, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns)); err != nil {
		t.Fatal(err)
	}
	mis, err := armmsi.NewUserAssignedIdentitiesClient(subID, w.fixture, w.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	mi, err := mis.Get(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns), nil)
	if err != nil {
		t.Fatal(err)
	}
	fics, err := armmsi.NewFederatedIdentityCredentialsClient(subID, w.fixture, w.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	issuer := w.env.IssuerURL
	if _, err := fics.CreateOrUpdate(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns), onboarding.FederatedCredentialName(ns),
		armmsi.FederatedIdentityCredential{Properties: &armmsi.FederatedIdentityCredentialProperties{
			Issuer: to.Ptr(issuer), Subject: to.Ptr(onboarding.Subject(ns, "azure")), Audiences: []*string{to.Ptr(identity.TokenAudience)},
		}}, nil); err != nil {
		t.Fatal(err)
	}
	asOperator, err := client.New(w.env.OperatorConfig, client.Options{Scheme: w.env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{onboarding.LabelOnboardedBy: tenant}
	if err := asOperator.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: ns, Labels: labels,
		Annotations: map[string]string{identity.AnnotationClientID: *mi.Properties.ClientID, identity.AnnotationTenantID: tenantID}}}); err != nil {
		t.Fatal(err)
	}
	w.create(&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns, Labels: labels},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: subID}})
	tn := onboardingTenant(tenant, []string{ns}, []string{"mg-app"})
	tn.Spec.Onboarding.ServiceAccountName = "azure"
	w.create(tn)
	tn.Status.Onboarding = &tenancyv1alpha1.OnboardingStatus{Created: []tenancyv1alpha1.CreatedResource{
		{Namespace: ns, Kind: onboarding.KindManagedIdentity, ID: *mi.ID},
		{Namespace: ns, Kind: onboarding.KindServiceAccount, ID: ns + "/azure"},
		{Namespace: ns, Kind: onboarding.KindIdentity, ID: ns + "/default"},
	}}
	if err := w.c.Status().Update(ctx, tn); err != nil {
		t.Fatal(err)
	}

	w.startOperator(tenant)
	w.waitOnboarded(tenant, metav1.ConditionTrue, onboarding.ReasonOnboarded)

	var id identityv1alpha1.Identity
	testenv.Eventually(t, time.Minute, "the Identity exchanges as the reserved account", func() (bool, string) {
		if err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &id); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		return id.Spec.ServiceAccountName == identity.ProvisionerServiceAccount && c != nil && c.Reason == identity.ReasonExchanged,
			"spec " + id.Spec.ServiceAccountName + ", conditions " + condString(c)
	})
	if id.Status.PrincipalID != *mi.Properties.PrincipalID {
		t.Errorf("the Identity acts as %s, want the same managed identity %s", id.Status.PrincipalID, *mi.Properties.PrincipalID)
	}
	fic, err := fics.Get(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns), onboarding.FederatedCredentialName(ns), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := *fic.Properties.Subject; got != onboarding.Subject(ns, identity.ProvisionerServiceAccount) {
		t.Errorf("the federated credential trusts %s", got)
	}
	testenv.Eventually(t, time.Minute, "the old account deleted", func() (bool, string) {
		err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "azure"}, &corev1.ServiceAccount{})
		return apierrors.IsNotFound(err), "get: " + errString(err)
	})
	w.expectEvent(tenant, "ServiceAccountNameIgnored", `"azure" is no longer used`)
	if _, err := mis.Get(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns), nil); err != nil {
		t.Errorf("the managed identity is gone: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "found"
	}
	return err.Error()
}
