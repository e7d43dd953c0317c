package kinds_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

func userAssignedIdentity(ns, name, rg string) *managedidentityv1alpha1.UserAssignedIdentity {
	return &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{
			Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: "westeurope",
		},
	}
}

func identityID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
}

// An identity waits for its resource group, is created with one PUT as the
// namespace's principal, reports the IDs Azure assigned and exports them to a
// ConfigMap it owns; a tag change writes once, a resync writes nothing, and
// deleting the object deletes the identity in Azure.
func TestUserAssignedIdentityLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "uai"
	s := newStack(t, ns)
	ctx := t.Context()

	uai := userAssignedIdentity(ns, "uai-app", "uai-rg")
	uai.Spec.Tags = map[string]string{"team": "a"}
	uai.Spec.OperatorSpec = &managedidentityv1alpha1.UserAssignedIdentityOperatorSpec{
		ConfigMaps: &managedidentityv1alpha1.UserAssignedIdentityOperatorConfigMaps{
			ClientID:    &azurev1alpha1.ConfigMapDestination{Name: "uai-app-ids", Key: "clientId"},
			PrincipalID: &azurev1alpha1.ConfigMapDestination{Name: "uai-app-ids", Key: "principalId"},
			TenantID:    &azurev1alpha1.ConfigMapDestination{Name: "uai-app-ids", Key: "tenantId"},
		},
	}
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)
	path := "/userAssignedIdentities/uai-app"
	if calls := s.ARMCalls(path); len(calls) != 0 {
		t.Fatalf("ARM calls before the resource group is Ready: %s", methods(calls))
	}

	s.Create(t, resourceGroup(ns, "uai-rg", nil, nil))
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	calls := s.ARMCalls(path)
	if got := methods(calls); !createdOnce(got) {
		t.Fatalf("create made %q, want \"GET PUT\"", got)
	}
	if calls[1].PrincipalID != s.Principal[ns] {
		t.Errorf("PUT by %s, want the namespace's principal %s", calls[1].PrincipalID, s.Principal[ns])
	}
	if !strings.EqualFold(uai.Status.ID, identityID("uai-rg", "uai-app")) {
		t.Errorf("status.id %q", uai.Status.ID)
	}
	props := s.AzureBody(t, identityID("uai-rg", "uai-app"))["properties"].(map[string]any)
	if uai.Status.ClientID == "" || uai.Status.ClientID != props["clientId"] || uai.Status.PrincipalID != props["principalId"] || uai.Status.TenantID != tenantID {
		t.Errorf("status %+v does not report Azure's IDs %v", uai.Status, props)
	}

	var cm corev1.ConfigMap
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "uai-app-ids"}, &cm))
	want := map[string]string{"clientId": uai.Status.ClientID, "principalId": uai.Status.PrincipalID, "tenantId": tenantID}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Errorf("ConfigMap %s = %q, want %q", k, cm.Data[k], v)
		}
	}
	if !metav1.IsControlledBy(&cm, uai) {
		t.Errorf("the ConfigMap is not owned by the identity: %+v", cm.OwnerReferences)
	}

	// A tag change makes exactly one more PUT.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(uai), uai))
	uai.Spec.Tags["env"] = "dev"
	must(t, s.Client.Update(ctx, uai))
	s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if got := s.Settled(t, path, 4); strings.Count(got, "PUT") != 2 {
		t.Errorf("a tag change made %q in all, want one more GET and PUT", got)
	}
	if tags := s.azureTags(t, identityID("uai-rg", "uai-app")); tags["env"] != "dev" || tags["team"] != "a" {
		t.Errorf("tags in Azure: %v", tags)
	}

	// An unchanged resync reads and writes nothing.
	s.Touch(t, uai, "1")
	if got := s.Settled(t, path, 5); strings.Count(got, "PUT") != 2 {
		t.Errorf("a resync made %q in all, want one more GET and no PUT", got)
	}

	must(t, s.Client.Delete(ctx, uai))
	until(t, "identity object gone", func() bool { return s.Gone(uai) })
	if _, err := s.Emu.Resource(identityID("uai-rg", "uai-app")); err == nil {
		t.Error("the identity still exists in Azure")
	}
}

// An export never overwrites a ConfigMap the identity does not own: the
// identity exists, but Ready says which ConfigMap is in the way.
func TestUserAssignedIdentityExportConflict(t *testing.T) {
	t.Parallel()
	const ns = "uaicm"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "someone-elses"}, Data: map[string]string{"clientId": "mine"}})
	s.Create(t, resourceGroup(ns, "uaicm-rg", nil, nil))
	uai := userAssignedIdentity(ns, "uaicm-app", "uaicm-rg")
	uai.Spec.OperatorSpec = &managedidentityv1alpha1.UserAssignedIdentityOperatorSpec{
		ConfigMaps: &managedidentityv1alpha1.UserAssignedIdentityOperatorConfigMaps{
			ClientID: &azurev1alpha1.ConfigMapDestination{Name: "someone-elses", Key: "clientId"},
		},
	}
	s.Create(t, uai)
	s.WaitReady(t, uai, metav1.ConditionFalse, reconcilers.ReasonExportConflict)
	if msg := meta.FindStatusCondition(uai.Status.Conditions, "Ready").Message; !strings.Contains(msg, `"someone-elses"`) {
		t.Errorf("message %q does not name the ConfigMap", msg)
	}
	if uai.Status.ClientID == "" {
		t.Error("the identity's IDs are not in status although it exists in Azure")
	}
	var cm corev1.ConfigMap
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "someone-elses"}, &cm))
	if cm.Data["clientId"] != "mine" || len(cm.OwnerReferences) != 0 {
		t.Errorf("the foreign ConfigMap was changed: %v %v", cm.Data, cm.OwnerReferences)
	}
}
