package attacks_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
)

// An Identity that names the victim's client ID: the operator asks Entra for
// the victim's identity with a token of the attacker's ServiceAccount, and
// Entra refuses because no federated credential of the victim trusts it.
func TestAttack_ForeignClientIDInIdentity(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "fcid")
	stolen := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "stolen"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: a.ClientID[a.victim], SubscriptionID: subID}}
	a.Create(t, stolen)
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", map[string]string{identity.AnnotationIdentity: "stolen"}, nil)
	a.Create(t, rg)

	a.denied(t, rg, identity.ReasonFederationRejected, a.ClientID[a.victim], "AADSTS70021")
	stacktest.Until(t, "Identity stolen refused", func() bool {
		if err := a.Client.Get(t.Context(), client.ObjectKeyFromObject(stolen), stolen); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(stolen.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Reason == identity.ReasonFederationRejected
	})
	if stolen.Status.PrincipalID != "" {
		t.Errorf("the Identity reports principal %s", stolen.Status.PrincipalID)
	}
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}

// The attacker points its provisioner account's workload-identity annotation
// at the victim's client ID, so the default Identity would act as the victim.
// Admission refuses the change (only the operator may make it); were it made
// anyway, Entra would refuse the exchange, since no federated credential of
// the victim trusts the attacker's account.
func TestAttack_ForeignClientIDOnServiceAccount(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "fsa")
	dev := newDeveloper(t, a, a.attacker)
	var sa corev1.ServiceAccount
	if err := dev.c.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: identity.ProvisionerServiceAccount}, &sa); err != nil {
		t.Fatal(err)
	}
	sa.Annotations[identity.AnnotationClientID] = a.ClientID[a.victim]
	refused(t, "a developer pointing the account at the victim's client ID", dev.c.Update(t.Context(), &sa))

	asOperator, err := client.New(a.Env.OperatorConfig, client.Options{Scheme: a.Env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := asOperator.Update(t.Context(), &sa); err != nil {
		t.Fatal(err)
	}
	// The resource is created once the operator has seen the change (its
	// Identity reports the new client ID, refused): created before, it could
	// be reconciled with the resolution the operator held a moment earlier,
	// the attacker's own identity, which proves nothing here.
	def := &identityv1alpha1.Identity{}
	stacktest.Until(t, "Identity default refused for the victim's client ID", func() bool {
		if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: identity.DefaultIdentityName}, def); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(def.Status.Conditions, identity.ConditionReady)
		return def.Status.ClientID == a.ClientID[a.victim] && c != nil && c.Reason == identity.ReasonFederationRejected
	})
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil)
	a.Create(t, rg)
	a.denied(t, rg, identity.ReasonFederationRejected, a.ClientID[a.victim], "system:serviceaccount:"+a.attacker+":"+identity.ProvisionerServiceAccount)
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}

// An Identity naming an ordinary ServiceAccount, one any namespace editor can
// mint tokens for, is not exchanged: the namespace's identity would be usable
// around the operator.
func TestAttack_IdentityNamesUnreservedServiceAccount(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "unres")
	a.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: a.attacker,
		Annotations: map[string]string{identity.AnnotationClientID: a.ClientID[a.attacker], identity.AnnotationTenantID: stacktest.TenantID}}})
	open := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "open"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: subID}}
	a.Create(t, open)
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", map[string]string{identity.AnnotationIdentity: "open"}, nil)
	a.Create(t, rg)
	a.denied(t, rg, identity.ReasonServiceAccountNotReserved, `"azure"`, identity.ProvisionerServiceAccount)
	stacktest.Until(t, "Identity open refused", func() bool {
		if err := a.Client.Get(t.Context(), client.ObjectKeyFromObject(open), open); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(open.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Reason == identity.ReasonServiceAccountNotReserved
	})
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "entra"}) {
		if strings.HasSuffix(e.Subject, ":azure") {
			t.Errorf("the operator exchanged a token of the unreserved account: %+v", e)
		}
	}
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}

// An Identity cannot name a ServiceAccount of another namespace, in any
// spelling: the API server refuses it.
func TestAttack_IdentityNamesForeignServiceAccount(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "fsan")
	for _, name := range []string{a.victim + "/azure", "system:serviceaccount:" + a.victim + ":azure"} {
		err := a.Client.Create(t.Context(), &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "borrowed"},
			Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: name, SubscriptionID: subID}})
		rejected(t, err, "spec.serviceAccountName")
	}
	a.contained(t)
	a.noWrite(t)
}

// The identity annotation names the victim's Identity by namespace/name: it is
// refused as not being a plain name, before any token is requested.
func TestAttack_IdentityAnnotationNamesOtherNamespace(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "idns")
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", map[string]string{identity.AnnotationIdentity: a.victim + "/default"}, nil)
	a.Create(t, rg)
	a.denied(t, rg, identity.ReasonInvalidIdentityReference, a.victim+"/default", "without a namespace")
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}
