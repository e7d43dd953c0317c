package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/planclient"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
)

// plan, run by a developer holding only what aztenant's user roles grant, says
// for each object what applying it would do in Azure: an update with the paths
// that would change, a create (also under an owner the plan creates), an
// existing resource that needs adoption, a Tenant denial and an API server
// refusal; and it writes nothing in Azure and leaves nothing in the cluster.
func TestPlan(t *testing.T) {
	const ns = "plan"
	s := stacktest.New(t, ns)
	ctx := t.Context()
	app := stacktest.ResourceGroup(ns, "plan-app", nil, map[string]string{"env": "dev"})
	same := stacktest.ResourceGroup(ns, "plan-same", nil, map[string]string{"env": "dev"})
	for _, rg := range []*resourcesv1alpha1.ResourceGroup{app, same} {
		s.Create(t, rg)
		s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	}
	rgs, err := armresources.NewResourceGroupsClient(stacktest.SubscriptionID, s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rgs.CreateOrUpdate(ctx, "plan-legacy", armresources.ResourceGroup{Location: to.Ptr(stacktest.Location)}, nil); err != nil {
		t.Fatal(err)
	}

	// What the chart's edit and view roles give for these kinds, and Plans.
	rw := []string{"create", "delete", "patch", "update", "get", "list", "watch"}
	s.Create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-user", Namespace: ns}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"resources.aztenant.io"}, Resources: []string{"resourcegroups"}, Verbs: rw},
		{APIGroups: []string{"storage.aztenant.io"}, Resources: []string{"storageaccounts"}, Verbs: rw},
		{APIGroups: []string{"plan.aztenant.io"}, Resources: []string{"plans"}, Verbs: []string{"create", "delete", "get", "list", "watch"}},
	}})
	s.Create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dev", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "aztenant-user"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "dev@plan"}}})
	cfg := rest.CopyConfig(s.Env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "dev@plan", Groups: []string{"system:authenticated"}}
	dev, err := client.New(cfg, client.Options{Scheme: s.Env.Scheme})
	if err != nil {
		t.Fatal(err)
	}

	docs, err := policy.DecodeManifests("plan.yaml", []byte(`
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata: {name: plan-app}
spec: {location: westeurope, tags: {env: prod}}
---
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata: {name: plan-same}
spec: {location: westeurope, tags: {env: dev}}
---
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata: {name: plan-new}
spec: {location: westeurope}
---
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccount
metadata: {name: plannewdata}
spec: {owner: {name: plan-new}, location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}, publicNetworkAccess: Disabled}
---
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata: {name: plan-legacy}
spec: {location: westeurope}
---
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata: {name: plan-elsewhere}
spec: {location: westeurope, azureName: prod-data}
---
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccount
metadata: {name: planbad}
spec: {owner: {name: plan-app}, location: westeurope, kind: StorageV2, sku: {name: Gold_LRS}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
`))
	if err != nil {
		t.Fatal(err)
	}
	since := uint64(0)
	if last := s.Emu.Audit(emulator.AuditFilter{Limit: 1}); len(last) > 0 {
		since = last[0].Seq
	}
	objs, err := planclient.Plan(ctx, dev, ns, docs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]planv1alpha1.PlannedObject{}
	for _, o := range objs {
		got[o.Name] = o
	}
	want := map[string]planv1alpha1.Action{
		"plan-app": planv1alpha1.ActionUpdate, "plan-same": planv1alpha1.ActionNoChange, "plan-new": planv1alpha1.ActionCreate,
		"plannewdata": planv1alpha1.ActionCreate, "plan-legacy": planv1alpha1.ActionNeedsAdoption,
		"plan-elsewhere": planv1alpha1.ActionDenied, "planbad": planv1alpha1.ActionDenied,
	}
	if len(objs) != len(want) {
		t.Errorf("%d planned objects, want %d (the ConfigMap is not planned): %+v", len(objs), len(want), objs)
	}
	for name, action := range want {
		if got[name].Action != action {
			t.Errorf("%s: %s (%s: %s), want %s", name, got[name].Action, got[name].Reason, got[name].Message, action)
		}
	}
	if d := got["plan-app"].Differences; len(d) != 1 || d[0].Path != "tags.env" || d[0].Actual != `"dev"` || d[0].Desired != `"prod"` {
		t.Errorf("plan-app differences %+v, want tags.env dev -> prod", d)
	}
	if r := got["plan-elsewhere"]; r.Reason != "TenantPolicyDenied" || !strings.Contains(r.Message, "prod-data") {
		t.Errorf("plan-elsewhere: %s %s", r.Reason, r.Message)
	}
	if r := got["planbad"]; !strings.Contains(r.Message, "the API server refuses it") || !strings.Contains(r.Message, "Gold_LRS") {
		t.Errorf("planbad: %s", r.Message)
	}
	if !strings.Contains(got["plannewdata"].Message, "with its owner") {
		t.Errorf("plannewdata: %s", got["plannewdata"].Message)
	}

	var out bytes.Buffer
	if err := planclient.Print(&out, "text", objs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `~ tags.env: "dev" -> "prod"`) {
		t.Errorf("text output lacks the difference:\n%s", out.String())
	}
	if code, ok := planExit(objs).(exitCode); !ok || code != 1 {
		t.Errorf("exit %v, want 1 (something is denied)", planExit(objs))
	}

	// Nothing written to Azure, nothing left in the cluster.
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"}) {
		if e.Method != "GET" {
			t.Errorf("plan made ARM %s %s", e.Method, e.Path)
		}
	}
	var plans planv1alpha1.PlanList
	if err := s.Client.List(ctx, &plans, client.InNamespace(ns)); err != nil || len(plans.Items) != 0 {
		t.Errorf("Plans left behind: %d (%v)", len(plans.Items), err)
	}
	var rgList resourcesv1alpha1.ResourceGroupList
	if err := s.Client.List(ctx, &rgList, client.InNamespace(ns)); err != nil || len(rgList.Items) != 2 {
		t.Errorf("%d resource groups in the namespace, want the 2 made before (%v)", len(rgList.Items), err)
	}
}
