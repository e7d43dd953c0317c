package attacks_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// A namespace editor creates a second Identity, naming an ordinary
// ServiceAccount of its own, while the namespace's resources are all served
// by default, then deletes both. Nothing uses the second Identity, so both
// go at once: resources served by default do not hold it, and the operator,
// which never acts with an ordinary account, put no protection finalizer on
// that account. (It used to wait forever, naming every resource of the
// namespace, and its account could not be deleted either.) default, its
// account and its resources are untouched.
//
// The chart's roles let editors only read Identities; the trial gave
// the editor aztenant's kinds, Identities included, and a platform may
// delegate them to a namespace's admins: the test grants it in a Role.
func TestAttack_DeleteUnusedSecondIdentity(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "idhold")
	ctx := t.Context()
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil)
	a.ready(t, rg)
	dev := newDeveloper(t, a, a.attacker)
	a.Create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "identities"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{identityv1alpha1.GroupVersion.Group}, Resources: []string{"identities"},
			Verbs: []string{"get", "list", "watch", "create", "delete"}}}})
	a.Create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "developer-identities"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "identities"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "developer", Namespace: a.attacker}}})
	a.begin()

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "builder"}}
	if err := dev.c.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	second := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "second"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: sa.Name, ClientID: a.ClientID[a.attacker], TenantID: stacktest.TenantID, SubscriptionID: subID}}
	stacktest.Until(t, "the developer may create Identities (RBAC propagated)", func() bool {
		return dev.c.Create(ctx, second) == nil
	})
	// The operator has seen it: protected (it may serve resources) and refused.
	stacktest.Until(t, "Identity second seen by the operator", func() bool {
		if err := dev.c.Get(ctx, client.ObjectKeyFromObject(second), second); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(second.Status.Conditions, identity.ConditionReady)
		return c != nil && c.Reason == identity.ReasonServiceAccountNotReserved && controllerutil.ContainsFinalizer(second, identity.ProtectionFinalizer)
	})

	if err := dev.c.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := dev.c.Delete(ctx, sa); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{second, sa} {
		testenv.Eventually(t, time.Minute, fmt.Sprintf("%T %s deleted", o, o.GetName()), func() (bool, string) {
			err := dev.c.Get(ctx, client.ObjectKeyFromObject(o), o)
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			msg := ""
			if id, ok := o.(*identityv1alpha1.Identity); ok {
				if c := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady); c != nil {
					msg = c.Message
				}
			}
			return false, fmt.Sprintf("err %v, finalizers %v, %s", err, o.GetFinalizers(), msg)
		})
	}

	// default still serves the namespace, and still protects its account.
	var prov corev1.ServiceAccount
	if err := a.Client.Get(ctx, client.ObjectKey{Namespace: a.attacker, Name: identity.ProvisionerServiceAccount}, &prov); err != nil {
		t.Fatal(err)
	}
	if !controllerutil.ContainsFinalizer(&prov, identity.ProtectionFinalizer) || !prov.DeletionTimestamp.IsZero() {
		t.Errorf("the provisioner account lost its protection: finalizers %v", prov.Finalizers)
	}
	a.WaitReady(t, rg, metav1.ConditionTrue, "Succeeded")
	a.contained(t)
	a.noWrite(t)
}
