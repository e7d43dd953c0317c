package onboarding_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

var writes = []string{http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost}

// A Tenant with onboarding for two namespaces: every step Ready, each
// namespace's default Identity exchanges tokens through the federated
// credential onboarding made, its roles lie on the tenant's resource groups
// only, every write was the platform principal's, a second pass writes
// nothing, and deleting the Tenant removes exactly what onboarding created.
func TestOnboardTwoNamespacesThenOffboard(t *testing.T) {
	w := newWorld(t, "ob-ops", []string{"Contributor", "User Access Administrator"}, true)
	ctx := t.Context()
	rgID := func(n string) string { return onboarding.ResourceGroupID(subID, n) }

	// Already there: a shared group (with a resource of its own), a group
	// the tenant gets no role on, and a ServiceAccount of the team's own.
	w.createRG("ob-shared")
	w.createRG("ob-elsewhere")
	if err := w.createUAMI(w.fixture, "ob-shared", "unrelated"); err != nil {
		t.Fatal(err)
	}
	unrelated := rgID("ob-shared") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/unrelated"
	for _, ns := range []string{"ob-a", "ob-b"} {
		w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	w.create(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: "ob-a"}})
	platformOID, err := w.emu.PrincipalID(platformClientID)
	if err != nil {
		t.Fatal(err)
	}
	mark := w.lastSeq()

	w.startOperator("ob")
	w.create(onboardingTenant("ob", []string{"ob-a", "ob-b"}, []string{"ob-app", "ob-shared"}))
	tn := w.waitOnboarded("ob", metav1.ConditionTrue, onboarding.ReasonOnboarded)

	t.Run("every step Ready", func(t *testing.T) {
		states := stepStates(tn)
		want := []string{"/ResourceGroups"}
		for _, ns := range []string{"ob-a", "ob-b"} {
			for _, s := range []string{"ManagedIdentity", "FederatedCredential", "RoleAssignments", "ServiceAccount", "Identity"} {
				want = append(want, ns+"/"+s)
			}
		}
		for _, k := range want {
			if states[k] != tenancyv1alpha1.StepReady {
				t.Errorf("step %s is %q, want Ready", k, states[k])
			}
		}
		if len(states) != len(want) {
			t.Errorf("steps %v, want exactly %v", states, want)
		}
		if c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded); !strings.Contains(c.Message, "2 namespace(s)") {
			t.Errorf("Onboarded message %q", c.Message)
		}
	})

	principals := map[string]string{}
	t.Run("the namespaces' default Identities exchange tokens as their own managed identity", func(t *testing.T) {
		for _, ns := range []string{"ob-a", "ob-b"} {
			miID := onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, ns)
			if got := findStep(tn, ns, "ManagedIdentity"); got == nil || !slices.Equal(got.IDs, []string{miID}) {
				t.Errorf("%s ManagedIdentity step %+v, want ID %s", ns, got, miID)
			}
			var id identityv1alpha1.Identity
			testenv.Eventually(t, time.Minute, ns+"/default Ready", func() (bool, string) {
				if err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &id); err != nil {
					return false, err.Error()
				}
				c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
				return c != nil && c.Status == metav1.ConditionTrue && c.Reason == identity.ReasonExchanged, "conditions " + condString(c)
			})
			if id.Labels[onboarding.LabelOnboardedBy] != "ob" {
				t.Errorf("%s/default labels %v", ns, id.Labels)
			}
			principals[ns] = id.Status.PrincipalID
			if id.Status.PrincipalID == "" || id.Status.PrincipalID == platformOID {
				t.Errorf("%s acts as principal %q, want its own managed identity", ns, id.Status.PrincipalID)
			}
			var sa corev1.ServiceAccount
			if err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: identity.ProvisionerServiceAccount}, &sa); err != nil {
				t.Fatal(err)
			}
			if sa.Annotations[identity.AnnotationTenantID] != tenantID || sa.Annotations[identity.AnnotationClientID] != id.Status.ClientID {
				t.Errorf("%s/azure annotations %v, Identity clientID %s", ns, sa.Annotations, id.Status.ClientID)
			}
		}
		if principals["ob-a"] == principals["ob-b"] {
			t.Error("both namespaces act as the same principal")
		}
	})

	t.Run("roles only on the tenant's resource groups", func(t *testing.T) {
		contributor := "/subscriptions/" + subID + "/providers/microsoft.authorization/roledefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"
		want := []string{
			strings.ToLower(rgID("ob-app") + " " + contributor),
			strings.ToLower(rgID("ob-shared") + " " + contributor),
		}
		for ns, p := range principals {
			if got := w.roleAssignmentsOf(p); !slices.Equal(got, want) {
				t.Errorf("%s's role assignments:\n%s\nwant:\n%s", ns, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		// And Azure enforces it: the namespace's credential writes in its group, not beside it.
		cred := w.namespaceCredential("ob-b")
		if err := w.createUAMI(cred, "ob-shared", "app"); err != nil {
			t.Errorf("ob-b creating an identity in ob-shared: %v", err)
		}
		err := w.createUAMI(cred, "ob-elsewhere", "app")
		var re *azcore.ResponseError
		if !errorsAs(err, &re) || re.StatusCode != http.StatusForbidden {
			t.Errorf("ob-b creating an identity in ob-elsewhere: %v, want 403", err)
		}
	})

	t.Run("every write was the platform principal's", func(t *testing.T) {
		n := 0
		for _, m := range writes {
			for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm", Method: m}) {
				if strings.Contains(e.Path, "/userAssignedIdentities/app") {
					continue // the namespace's own write above
				}
				n++
				if e.PrincipalID != platformOID {
					t.Errorf("%s %s by %s, want the platform principal %s", e.Method, e.Path, e.PrincipalID, platformOID)
				}
			}
		}
		// 2 groups + the identity group, 2 identities, 2 credentials, 4 role assignments.
		if n != 10 {
			t.Errorf("%d writes, want 10", n)
		}
	})

	t.Run("what was created is recorded, what existed is not", func(t *testing.T) {
		var got []string
		for _, c := range w.tenant("ob").Status.Onboarding.Created {
			got = append(got, c.Namespace+" "+c.Kind)
			if c.Kind == onboarding.KindResourceGroup && strings.EqualFold(c.ID, rgID("ob-shared")) {
				t.Errorf("pre-existing %s recorded as created", c.ID)
			}
		}
		want := []string{" ResourceGroup", " ResourceGroup",
			"ob-a ManagedIdentity", "ob-a RoleAssignment", "ob-a RoleAssignment", "ob-a ServiceAccount", "ob-a Identity",
			"ob-b ManagedIdentity", "ob-b RoleAssignment", "ob-b RoleAssignment", "ob-b ServiceAccount", "ob-b Identity"}
		if !slices.Equal(got, want) {
			t.Errorf("created:\n%v\nwant:\n%v", got, want)
		}
	})

	t.Run("a second pass writes nothing to Azure", func(t *testing.T) {
		before := w.lastSeq()
		tn := w.tenant("ob")
		base := tn.DeepCopy()
		tn.Annotations = map[string]string{"test/poke": "1"}
		if err := w.c.Patch(ctx, tn, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
		// A pass reads 3 groups and, per namespace, identity, credential and 2 assignments.
		testenv.Eventually(t, time.Minute, "a full pass", func() (bool, string) {
			n := len(w.emu.Audit(emulator.AuditFilter{Since: before, Service: "arm", Method: http.MethodGet, PrincipalID: platformOID}))
			return n >= 11, "GETs so far: " + itoa(n)
		})
		for _, m := range writes {
			if e := w.emu.Audit(emulator.AuditFilter{Since: before, Service: "arm", Method: m}); len(e) > 0 {
				t.Errorf("%d %s calls on an unchanged Tenant, first %s", len(e), m, e[0].Path)
			}
		}
	})

	t.Run("a namespace leaving the Tenant is offboarded alone", func(t *testing.T) {
		tn := w.tenant("ob")
		tn.Spec.Namespaces = []string{"ob-a", "ob-c"} // ob-c does not exist: selected, not onboarded
		if err := w.c.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "ob-b offboarded", func() (bool, string) {
			tn := w.waitOnboarded("ob", metav1.ConditionTrue, onboarding.ReasonOnboarded)
			var left []string
			for _, c := range tn.Status.Onboarding.Created {
				if c.Namespace == "ob-b" {
					left = append(left, c.Kind)
				}
			}
			return len(left) == 0, "ob-b still has " + strings.Join(left, ", ")
		})
		if w.exists(onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, "ob-b")) {
			t.Error("ob-b's managed identity is still there")
		}
		if got := w.roleAssignmentsOf(principals["ob-b"]); len(got) > 0 {
			t.Errorf("ob-b keeps role assignments %v", got)
		}
		if err := w.c.Get(ctx, client.ObjectKey{Namespace: "ob-b", Name: "default"}, &identityv1alpha1.Identity{}); !apierrors.IsNotFound(err) {
			t.Errorf("ob-b/default: %v, want deleted", err)
		}
		if !w.exists(onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, "ob-a")) || len(w.roleAssignmentsOf(principals["ob-a"])) != 2 {
			t.Error("ob-a lost its identity or roles")
		}
	})

	t.Run("offboarding deletes what onboarding created and only that", func(t *testing.T) {
		if err := w.c.Delete(ctx, w.tenant("ob")); err != nil {
			t.Fatal(err)
		}
		w.waitGone(&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "ob"}})
		for _, id := range []string{rgID("ob-app"), rgID(onboarding.DefaultIdentityResourceGroup),
			onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, "ob-a"),
			onboarding.ManagedIdentityID(subID, onboarding.DefaultIdentityResourceGroup, "ob-b")} {
			if w.exists(id) {
				t.Errorf("%s still exists", id)
			}
		}
		for ns, p := range principals {
			if got := w.roleAssignmentsOf(p); len(got) > 0 {
				t.Errorf("%s keeps role assignments %v", ns, got)
			}
		}
		for _, id := range []string{rgID("ob-shared"), rgID("ob-elsewhere"), unrelated, rgID("ob-shared") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app"} {
			if !w.exists(id) {
				t.Errorf("%s was deleted; onboarding did not create it", id)
			}
		}
		for _, ns := range []string{"ob-a", "ob-b"} {
			for _, o := range []client.Object{&corev1.ServiceAccount{}, &identityv1alpha1.Identity{}} {
				name := identity.ProvisionerServiceAccount
				if _, ok := o.(*identityv1alpha1.Identity); ok {
					name = "default"
				}
				if err := w.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o); !apierrors.IsNotFound(err) {
					t.Errorf("%T %s/%s: %v, want deleted", o, ns, name, err)
				}
			}
		}
		if err := w.c.Get(ctx, client.ObjectKey{Namespace: "ob-a", Name: "builder"}, &corev1.ServiceAccount{}); err != nil {
			t.Errorf("the team's own ServiceAccount: %v", err)
		}
	})
}

// Without the platform Identity, the Tenant says so and nothing is created
// anywhere; creating it resumes onboarding without waiting for a retry.
func TestPlatformIdentityMissing(t *testing.T) {
	w := newWorld(t, "pm-ops", []string{"Contributor", "User Access Administrator"}, false)
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pm-a"}})
	w.startOperator("pm", "pm-other")
	w.create(onboardingTenant("pm", []string{"pm-a"}, []string{"pm-app"}))

	tn := w.waitOnboarded("pm", metav1.ConditionFalse, onboarding.ReasonPlatformIdentityMissing)
	c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
	if !strings.Contains(c.Message, "pm-ops/platform") || !strings.Contains(c.Message, "--platform-identity") {
		t.Errorf("message %q does not name the Identity and the flag", c.Message)
	}
	if n := len(w.emu.Audit(emulator.AuditFilter{Service: "arm"})); n != 0 {
		t.Errorf("%d ARM calls without a platform identity", n)
	}
	if err := w.c.Get(t.Context(), client.ObjectKey{Namespace: "pm-a", Name: identity.ProvisionerServiceAccount}, &corev1.ServiceAccount{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceAccount pm-a/azure: %v, want none", err)
	}

	start := time.Now()
	w.createPlatformIdentity()
	w.waitOnboarded("pm", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	t.Logf("onboarded %s after the platform Identity appeared", time.Since(start).Round(time.Millisecond))

	// Another Tenant asking for a role on the group holding pm's identities
	// could federate them with its own namespaces: refused before any call.
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pm-other-a"}})
	other := onboardingTenant("pm-other", []string{"pm-other-a"}, []string{onboarding.DefaultIdentityResourceGroup})
	other.Spec.ResourceGroups = []string{"*"}
	other.Spec.Onboarding.IdentityResourceGroup = "pm-other-identities"
	w.create(other)
	tn = w.waitOnboarded("pm-other", metav1.ConditionFalse, onboarding.ReasonResourceGroupNotAllowed)
	if c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded); !strings.Contains(c.Message, `managed identities of Tenant "pm"`) {
		t.Errorf("message %q does not name the Tenant whose identities are there", c.Message)
	}
	if w.exists(onboarding.ResourceGroupID(subID, "pm-other-identities")) || w.exists(onboarding.ManagedIdentityID(subID, "pm-other-identities", "pm-other-a")) {
		t.Error("the refused Tenant's onboarding created something")
	}
}

// A platform principal without User Access Administrator gets as far as the
// role assignments; the step carries Azure's 403, later steps wait, and
// everything already created is recorded, so deleting the Tenant leaves
// nothing behind.
func TestPlatformWithoutUserAccessAdministrator(t *testing.T) {
	w := newWorld(t, "nu-ops", []string{"Contributor"}, true)
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "nu-a"}})
	w.startOperator("nu")
	w.create(onboardingTenant("nu", []string{"nu-a"}, []string{"nu-app"}))

	tn := w.waitOnboarded("nu", metav1.ConditionFalse, onboarding.ReasonAzureForbidden)
	c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded)
	if !strings.Contains(c.Message, "namespace nu-a: RoleAssignments:") ||
		!strings.Contains(c.Message, "does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/write'") {
		t.Errorf("Onboarded message %q lacks the step and Azure's 403", c.Message)
	}
	want := map[string]string{
		"/ResourceGroups": "Ready", "nu-a/ManagedIdentity": "Ready", "nu-a/FederatedCredential": "Ready",
		"nu-a/RoleAssignments": "Failed", "nu-a/ServiceAccount": "Pending", "nu-a/Identity": "Pending",
	}
	if got := stepStates(tn); !maps.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if s := findStep(tn, "nu-a", "RoleAssignments"); s.Reason != onboarding.ReasonAzureForbidden {
		t.Errorf("RoleAssignments reason %q", s.Reason)
	}

	// Everything the platform principal created in Azure is in the record.
	platformOID, _ := w.emu.PrincipalID(platformClientID)
	recorded := map[string]bool{}
	for _, c := range tn.Status.Onboarding.Created {
		recorded[strings.ToLower(c.ID)] = true
	}
	for _, e := range w.emu.Audit(emulator.AuditFilter{Service: "arm", Method: http.MethodPut, PrincipalID: platformOID}) {
		if e.Status/100 == 2 && !strings.Contains(e.Path, "/federatedIdentityCredentials/") && !recorded[strings.ToLower(e.Path)] {
			t.Errorf("PUT %s succeeded but is not recorded", e.Path)
		}
	}
	if len(recorded) != 3 {
		t.Errorf("recorded %v, want the two groups and the identity", recorded)
	}
	if err := w.c.Get(t.Context(), client.ObjectKey{Namespace: "nu-a", Name: identity.ProvisionerServiceAccount}, &corev1.ServiceAccount{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceAccount created although its identity has no roles: %v", err)
	}

	// Someone puts a resource of their own in a group onboarding created:
	// offboarding must not take it down with the group.
	if err := w.createUAMI(w.fixture, "nu-app", "theirs"); err != nil {
		t.Fatal(err)
	}
	nuApp := onboarding.ResourceGroupID(subID, "nu-app")
	if err := w.c.Delete(t.Context(), w.tenant("nu")); err != nil {
		t.Fatal(err)
	}
	w.waitGone(&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "nu"}})
	for id := range recorded {
		if strings.EqualFold(id, nuApp) {
			continue
		}
		if w.exists(id) {
			t.Errorf("%s left behind", id)
		}
	}
	if !w.exists(nuApp + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/theirs") {
		t.Error("offboarding deleted a resource group holding someone else's resource")
	}
	w.expectEvent("nu", "ResourceGroupKept", "nu-app")
}

// The API server refuses onboarding specs that would widen a tenant's
// allowance, before the operator sees them.
func TestOnboardingSpecValidation(t *testing.T) {
	w := &world{t: t, c: testenvClient(t)}
	for name, mutate := range map[string]func(*tenancyv1alpha1.TenantOnboarding, *tenancyv1alpha1.TenantSpec){
		"Owner": func(o *tenancyv1alpha1.TenantOnboarding, _ *tenancyv1alpha1.TenantSpec) {
			o.Roles = []string{"Reader", "Owner"}
		},
		"User Access Administrator": func(o *tenancyv1alpha1.TenantOnboarding, _ *tenancyv1alpha1.TenantSpec) {
			o.Roles = []string{"User Access Administrator"}
		},
		"identityResourceGroup": func(o *tenancyv1alpha1.TenantOnboarding, _ *tenancyv1alpha1.TenantSpec) {
			o.IdentityResourceGroup = "VA-APP"
		},
		"onboarding.subscription": func(o *tenancyv1alpha1.TenantOnboarding, _ *tenancyv1alpha1.TenantSpec) {
			o.Subscription = "99999999-9999-4999-8999-999999999999"
		},
	} {
		tn := onboardingTenant("va-"+strings.ToLower(strings.ReplaceAll(strings.Split(name, ".")[0], " ", "-")), []string{"va"}, []string{"va-app"})
		mutate(tn.Spec.Onboarding, &tn.Spec)
		err := w.c.Create(t.Context(), tn)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want Invalid naming %q", name, err, name)
		}
	}
	long := onboardingTenant("va-"+strings.Repeat("x", 61), []string{"va"}, []string{"va-app"})
	if err := w.c.Create(t.Context(), long); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "at most 63 characters") {
		t.Errorf("a 64-character Tenant name with onboarding: %v, want Invalid", err)
	}
}
