package onboarding_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azroles "github.com/aztenant/aztenant/api/authorization/roles"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// spec.onboarding.apps gives a namespace's pods a workload identity of their
// own: a second managed identity federated with the apps' ServiceAccount,
// holding only the data-plane role asked for, on the tenant's groups; its
// ServiceAccount annotated as the azure-workload-identity webhook expects. A
// token of that account (any editor may mint one) acts as the apps' identity,
// which cannot write to ARM; a provisioning role for apps is refused; removing
// apps removes exactly what it added.
func TestOnboardAppsIdentity(t *testing.T) {
	w := newWorld(t, "ap-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	ns, tenant := "ap-a", "ap"
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	w.startOperator(tenant)
	tn := onboardingTenant(tenant, []string{ns}, []string{"ap-app"})
	tn.Spec.Onboarding.Apps = &tenancyv1alpha1.TenantOnboardingApps{Roles: []string{"Contributor"}}
	w.create(tn)
	got := w.waitOnboarded(tenant, metav1.ConditionFalse, onboarding.ReasonRoleNotAllowed)
	if msg := condString(meta.FindStatusCondition(got.Status.Conditions, onboarding.ConditionOnboarded)); !strings.Contains(msg, "Contributor") || !strings.Contains(msg, "not a data-plane one") {
		t.Errorf("Contributor for apps refused with %q", msg)
	}

	tn = w.tenant(tenant)
	tn.Spec.Onboarding.Apps = &tenancyv1alpha1.TenantOnboardingApps{Roles: []string{"Storage Blob Data Reader"}}
	if err := w.c.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	got = w.waitOnboarded(tenant, metav1.ConditionTrue, onboarding.ReasonOnboarded)
	states := stepStates(got)
	for _, step := range []string{"AppManagedIdentity", "AppFederatedCredential", "AppRoleAssignments", "AppServiceAccount"} {
		if states[ns+"/"+step] != tenancyv1alpha1.StepReady {
			t.Errorf("step %s is %q", step, states[ns+"/"+step])
		}
	}

	mis, err := armmsi.NewUserAssignedIdentitiesClient(subID, w.fixture, w.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	app, err := mis.Get(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.AppIdentityName(ns), nil)
	if err != nil {
		t.Fatal(err)
	}
	prov, err := mis.Get(ctx, onboarding.DefaultIdentityResourceGroup, onboarding.IdentityName(ns), nil)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := azroles.ByName("Storage Blob Data Reader")
	want := []string{strings.ToLower(onboarding.ResourceGroupID(subID, "ap-app") + " " + onboarding.RoleDefinitionID(subID, reader.ID))}
	if got := w.roleAssignmentsOf(*app.Properties.PrincipalID); !slices.Equal(got, want) {
		t.Errorf("the apps' identity holds %v, want only %v", got, want)
	}

	var sa corev1.ServiceAccount
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: onboarding.DefaultAppServiceAccount}, &sa); err != nil {
		t.Fatal(err)
	}
	if sa.Annotations[identity.AnnotationClientID] != *app.Properties.ClientID || sa.Annotations[identity.AnnotationTenantID] != tenantID {
		t.Errorf("apps' ServiceAccount annotations %v, want the apps' identity %s", sa.Annotations, *app.Properties.ClientID)
	}

	// A token of the apps' account, as a pod gets it, is the apps' identity
	// in Azure, not the provisioning one, and cannot write to ARM.
	tr, err := kubernetes.NewForConfigOrDie(w.env.Config).CoreV1().ServiceAccounts(ns).CreateToken(ctx, onboarding.DefaultAppServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{identity.TokenAudience}, ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	asApp := w.assertionCredential(t, *app.Properties.ClientID, tr.Status.Token)
	tok, err := asApp.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://management.core.windows.net//.default"}})
	if err != nil {
		t.Fatalf("the apps' token does not exchange as the apps' identity: %v", err)
	}
	if p := identity.PrincipalOf(tok.Token); p != *app.Properties.PrincipalID {
		t.Errorf("exchanged as %s, want the apps' identity %s", p, *app.Properties.PrincipalID)
	}
	var re *azcore.ResponseError
	if err := w.createUAMI(asApp, "ap-app", "sneaky"); !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		t.Errorf("the apps' identity writing to ARM: %v, want 403", err)
	}
	if _, err := w.assertionCredential(t, *prov.Properties.ClientID, tr.Status.Token).GetToken(ctx,
		policy.TokenRequestOptions{Scopes: []string{"https://management.core.windows.net//.default"}}); err == nil || !strings.Contains(err.Error(), "AADSTS70021") {
		t.Errorf("the apps' token for the provisioning identity: %v, want AADSTS70021", err)
	}

	// Dropping apps removes what it created, and only that.
	tn = w.tenant(tenant)
	tn.Spec.Onboarding.Apps = nil
	if err := w.c.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the apps' identity and account removed", func() (bool, string) {
		err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: onboarding.DefaultAppServiceAccount}, &corev1.ServiceAccount{})
		return !w.exists(*app.ID) && err != nil, "apps' identity exists: " + boolString(w.exists(*app.ID))
	})
	if !w.exists(*prov.ID) {
		t.Error("the provisioning identity went too")
	}
}

func (w *world) assertionCredential(t *testing.T, clientID, token string) *azidentity.ClientAssertionCredential {
	t.Helper()
	cred, err := azidentity.NewClientAssertionCredential(tenantID, clientID,
		func(context.Context) (string, error) { return token, nil },
		&azidentity.ClientAssertionCredentialOptions{ClientOptions: w.opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func boolString(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
