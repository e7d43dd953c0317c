package planning_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	keyvaultv1alpha1 "github.com/aztenant/aztenant/api/keyvault/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/reconcilertest"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
	"github.com/aztenant/aztenant/reconcilers/planning"
)

const rgID = "/subscriptions/" + reconcilertest.SubscriptionID + "/resourceGroups/team-rg"

func vault() *keyvaultv1alpha1.Vault {
	return &keyvaultv1alpha1.Vault{
		TypeMeta:   metav1.TypeMeta{APIVersion: keyvaultv1alpha1.GroupVersion.String(), Kind: "Vault"},
		ObjectMeta: metav1.ObjectMeta{Namespace: reconcilertest.Namespace, Name: "kv", UID: "vault-uid"},
		Spec: keyvaultv1alpha1.VaultSpec{
			Owner: &azurev1alpha1.OwnerReference{ARMID: rgID}, Location: "westeurope", TenantID: reconcilertest.TenantID,
			SKU: keyvaultv1alpha1.VaultSKU{Family: "A", Name: "standard"}, EnableSoftDelete: ptr.To(false), EnabledForDeployment: ptr.To(false),
		},
	}
}

// recordOnlyVault is the Vault kind without its facts of Azure's answers
// (soft delete forced on): the record alone explains the answer, as it does
// where no fact does (issue 27's "R" rows).
type recordOnlyVault struct{ kinds.Vault }

func (k recordOnlyVault) Facts() reconcilers.Facts {
	f := k.Vault.Facts()
	f.Forced, f.NotReturned, f.Normalize, f.OpenValues = nil, nil, nil, nil
	return f
}

// F12, plan: after Azure answered the create its own way (soft delete forced
// on), `aztenant plan` of the unchanged object says NoChange and lists the
// path Azure keeps apart; with a change elsewhere, Update of that path alone.
func TestPlanShowsKeptByAzure(t *testing.T) {
	stored := vault()
	e := reconcilertest.New(t, recordOnlyVault{}, stored)
	e.Put(t, rgID, "2024-03-01", `{"location":"westeurope"}`)
	e.Answers.Write(func(b map[string]any) { reconcilertest.Set(b, "properties.enableSoftDelete", true) })
	r := e.Reconciler(false)
	e.Sync(t, r, stored)
	e.Sync(t, r, stored)
	if stored.Status.AzureKeeps == nil {
		t.Fatal("no record after the create")
	}

	changed := vault()
	changed.Name = "kv" // the same object, with a change at another path
	changed.Spec.EnabledForDeployment = ptr.To(true)
	var objs []runtime.RawExtension
	for _, v := range []*keyvaultv1alpha1.Vault{vault(), changed} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, runtime.RawExtension{Raw: raw})
	}
	plan := &planv1alpha1.Plan{ObjectMeta: metav1.ObjectMeta{Namespace: reconcilertest.Namespace, Name: "p"}, Spec: planv1alpha1.PlanSpec{Objects: objs}}
	if err := e.Client.Create(t.Context(), plan); err != nil {
		t.Fatal(err)
	}
	p := &planning.Planner{Client: e.Client, Registry: e.Registry, New: func(reconcilers.Kind) *reconcilers.Reconciler { return e.Reconciler(false) }}
	if _, err := p.Reconcile(t.Context(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(plan)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Client.Get(t.Context(), client.ObjectKeyFromObject(plan), plan); err != nil {
		t.Fatal(err)
	}
	got := plan.Status.Objects
	if len(got) != 2 {
		t.Fatalf("%d objects planned", len(got))
	}
	same, other := got[0], got[1]
	if same.Action != planv1alpha1.ActionNoChange || len(same.Differences) != 0 || !strings.Contains(same.Message, "Azure keeps 1 path(s) its own way") {
		t.Errorf("unchanged: %s %+v: %s", same.Action, same.Differences, same.Message)
	}
	if k := same.KeptByAzure; len(k) != 1 || k[0].Path != "properties.enableSoftDelete" || k[0].Actual != "true" || k[0].Desired != "false" {
		t.Errorf("unchanged: keptByAzure %+v", k)
	}
	if other.Action != planv1alpha1.ActionUpdate || len(other.Differences) != 1 || other.Differences[0].Path != "properties.enabledForDeployment" || len(other.KeptByAzure) != 1 {
		t.Errorf("changed elsewhere: %s %+v kept %+v", other.Action, other.Differences, other.KeptByAzure)
	}
	if n := e.Writes(rgID + "/providers/Microsoft.KeyVault/vaults/kv"); n != 1 {
		t.Errorf("%d PUTs: planning writes nothing", n)
	}
}
