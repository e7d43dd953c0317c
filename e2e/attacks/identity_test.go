package attacks_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/stacktest"
)

// An Identity that names the victim's client ID: the operator asks Entra for
// the victim's identity with a token of the attacker's ServiceAccount, and
// Entra refuses because no federated credential of the victim trusts it.
func TestAttack_ForeignClientIDInIdentity(t *testing.T) {
	a := newAttack(t, "fcid")
	stolen := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "stolen"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", ClientID: a.ClientID[a.victim], SubscriptionID: subID}}
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

// The attacker points its own ServiceAccount's workload-identity annotation at
// the victim's client ID, so the default Identity would act as the victim.
func TestAttack_ForeignClientIDOnServiceAccount(t *testing.T) {
	a := newAttack(t, "fsa")
	var sa corev1.ServiceAccount
	if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: "azure"}, &sa); err != nil {
		t.Fatal(err)
	}
	sa.Annotations[identity.AnnotationClientID] = a.ClientID[a.victim]
	if err := a.Client.Update(t.Context(), &sa); err != nil {
		t.Fatal(err)
	}
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil)
	a.Create(t, rg)

	a.denied(t, rg, identity.ReasonFederationRejected, a.ClientID[a.victim], "system:serviceaccount:"+a.attacker+":azure")
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}

// An Identity cannot name a ServiceAccount of another namespace, in any
// spelling: the API server refuses it.
func TestAttack_IdentityNamesForeignServiceAccount(t *testing.T) {
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
	a := newAttack(t, "idns")
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", map[string]string{identity.AnnotationIdentity: a.victim + "/default"}, nil)
	a.Create(t, rg)
	a.denied(t, rg, identity.ReasonInvalidIdentityReference, a.victim+"/default", "without a namespace")
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}
