package attacks_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/policy"
)

// escalated seeds the attacker's principal as Role Based Access Control
// Administrator on its own resource group, so Azure would accept any role
// assignment there: what stops the attack is the policy guard alone.
func escalated(t *testing.T, a *attack) string {
	t.Helper()
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	if err := a.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: a.Principal[a.attacker], Role: "Role Based Access Control Administrator", Scope: stacktest.RGID(rg),
	}}}); err != nil {
		t.Fatal(err)
	}
	a.begin()
	return rg
}

// Owner on the attacker's own resource group, by name: it would let the
// identity grant itself anything there and remove the platform's locks.
func TestAttack_RoleAssignmentOwnerOnOwnGroup(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "raown")
	rg := escalated(t, a)
	ra := roleAssignment(a.attacker, "takeover", authorizationv1alpha1.RoleAssignmentOwner{Name: rg},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Owner"}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, policy.ReasonPolicyDenied, "grants privileged role Owner", "no-privileged-roles")
	a.contained(t)
	a.noWrite(t)
}

// User Access Administrator named by its role definition ID, in upper case,
// to slip past a check on well-known names.
func TestAttack_RoleAssignmentPrivilegedRoleByID(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "raid")
	rg := escalated(t, a)
	ra := roleAssignment(a.attacker, "uaa", authorizationv1alpha1.RoleAssignmentOwner{Name: rg},
		authorizationv1alpha1.RoleDefinitionReference{ARMID: "/subscriptions/" + subID + "/providers/Microsoft.Authorization/roleDefinitions/18D7D88D-D35E-4FB5-A5C3-7773C20A72D9"},
		a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, policy.ReasonPolicyDenied, "privileged role", "no-privileged-roles")
	a.contained(t)
	a.noWrite(t)
}

// uaiReady creates the attacker's resource group and a user-assigned identity
// in it, then begins the attack.
func uaiReady(t *testing.T, a *attack) string {
	t.Helper()
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.ready(t, &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "app"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: stacktest.Location},
	})
	a.begin()
	return "app"
}

func federatedCredential(ns, name, owner, issuer, subject string) *managedidentityv1alpha1.FederatedIdentityCredential {
	return &managedidentityv1alpha1.FederatedIdentityCredential{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: owner}, Issuer: issuer, Subject: subject,
		},
	}
}

// A federated credential on the attacker's identity trusting the victim's
// ServiceAccount: the victim's workloads would become able to act as it (and
// the attacker could pass data, or blame, across the boundary).
func TestAttack_FederatedCredentialForAnotherNamespace(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "ficns")
	uai := uaiReady(t, a)
	fic := federatedCredential(a.attacker, "bridge", uai, a.Env.IssuerURL, "system:serviceaccount:"+a.victim+":azure")
	a.Create(t, fic)
	a.denied(t, fic, policy.ReasonPolicyDenied, "must be system:serviceaccount:"+a.attacker+":<serviceaccount>")
	a.contained(t)
	a.noWrite(t)
}

// A federated credential trusting another cluster's issuer, where the
// attacker controls the subjects.
func TestAttack_FederatedCredentialForAnotherIssuer(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "ficiss")
	uai := uaiReady(t, a)
	fic := federatedCredential(a.attacker, "outside", uai, "https://attacker.example.com", "system:serviceaccount:"+a.attacker+":azure")
	a.Create(t, fic)
	a.denied(t, fic, policy.ReasonPolicyDenied, "is not this cluster's issuer")
	a.contained(t)
	a.noWrite(t)
}

// Reader for itself on its own group passes the policy, but the namespace's
// identity (Contributor) may not grant roles: Azure RBAC refuses the PUT, the
// refusal names who was refused what, and no assignment exists.
func TestAttack_RoleAssignmentWithoutRightToGrant(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rarbac")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.begin()
	ra := roleAssignment(a.attacker, "self-grant", authorizationv1alpha1.RoleAssignmentOwner{Name: rg},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, "AuthorizationFailed", a.Principal[a.attacker], "Microsoft.Authorization/roleAssignments/write")
	a.contained(t)
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm", Method: "PUT"}) {
		if e.Status != 403 {
			t.Errorf("PUT %s answered %d, want 403", e.Path, e.Status)
		}
	}
	if ra.Status.ID != "" {
		if _, err := a.Emu.Resource(ra.Status.ID); err == nil {
			t.Error("the role assignment exists in Azure")
		}
	}
}

// With no constraints configured at all, the operator still refuses a
// federated credential for another namespace's ServiceAccount and a
// privileged role assignment: the identity rules are on by default. The
// flag that turns them off does (the credential then reaches Azure).
func TestAttack_IdentityRulesHoldWithoutConfiguration(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		name := "secure-by-default"
		if skip {
			name = "rules-turned-off"
		}
		t.Run(name, func(t *testing.T) {
			cfg := attackConfig()
			cfg.SkipDefaultIdentityRules = skip
			id := "dflt"
			if skip {
				id = "nodflt"
			}
			a := &attack{attacker: id + "-attacker", victim: id + "-victim"}
			a.Stack = stacktest.NewWith(t, cfg, a.attacker, a.victim)
			uai := uaiReady(t, a)
			fic := federatedCredential(a.attacker, "bridge", uai, a.Env.IssuerURL, "system:serviceaccount:"+a.victim+":"+identity.ProvisionerServiceAccount)
			a.Create(t, fic)
			if skip {
				a.WaitReady(t, fic, metav1.ConditionTrue, "Succeeded")
				return
			}
			a.denied(t, fic, policy.ReasonPolicyDenied, policy.DefaultFederationConstraint, "must be system:serviceaccount:"+a.attacker+":<serviceaccount>")
			rg := escalated(t, a)
			ra := roleAssignment(a.attacker, "takeover", authorizationv1alpha1.RoleAssignmentOwner{Name: rg},
				authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Owner"}, a.Principal[a.attacker])
			a.Create(t, ra)
			a.denied(t, ra, policy.ReasonPolicyDenied, policy.DefaultRoleAssignmentConstraint, "grants privileged role Owner")
			a.contained(t)
			a.noWrite(t)
		})
	}
}
