package attacks_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// A resource group of the victim's, adopted by the attacker: it would then be
// managed (and, with reconcile-policy manage, deleted) from the attacker's
// namespace.
func TestAttack_AdoptInAnotherTenantsGroup(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "adopt")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-data", nil, map[string]string{"owner": "victim"}))
	a.begin()
	rg := stacktest.ResourceGroup(a.attacker, "grab", map[string]string{reconcilers.AnnotationAdopt: "true"}, map[string]string{"owner": "attacker"})
	rg.Spec.AzureName = a.victim + "-data"
	a.Create(t, rg)
	a.denied(t, rg, tenancy.ReasonPolicyDenied, a.victim+"-data", "is not allowed for tenant")
	if tags := a.AzureBody(t, stacktest.RGID(a.victim+"-data"))["tags"].(map[string]any); tags["owner"] != "victim" {
		t.Errorf("the victim's resource group was changed: tags %v", tags)
	}
	a.contained(t)
	a.noWrite(t)
}

// A resource group the platform created in the attacker's bounds, adopted and
// then deleted: adoption defaults to detach-on-delete, so deleting the object
// leaves the resource in Azure and no DELETE is sent.
func TestAttack_DeleteAdoptedResource(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "deladopt")
	allowReconcileAnnotations(t, a, a.attacker) // adopting is the platform's to allow
	name := a.attacker + "-legacy"
	rgs, err := armresources.NewResourceGroupsClient(subID, a.PlatformCredential(t), &arm.ClientOptions{ClientOptions: a.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rgs.CreateOrUpdate(t.Context(), name, armresources.ResourceGroup{Location: to.Ptr(stacktest.Location)}, nil); err != nil {
		t.Fatal(err)
	}
	rg := stacktest.ResourceGroup(a.attacker, name, map[string]string{reconcilers.AnnotationAdopt: "true"}, nil)
	a.ready(t, rg)
	if !rg.Status.Adopted {
		t.Fatal("status.adopted is not set")
	}
	a.begin()
	if err := a.Client.Delete(t.Context(), rg); err != nil {
		t.Fatal(err)
	}
	stacktest.Until(t, "adopted object gone", func() bool { return a.Gone(rg) })
	if _, err := a.Emu.Resource(stacktest.RGID(name)); err != nil {
		t.Errorf("deleting the adopted object deleted the resource group in Azure: %v", err)
	}
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm", Method: "DELETE"}) {
		if strings.Contains(strings.ToLower(e.Path), strings.ToLower(name)) {
			t.Errorf("DELETE %s was sent", e.Path)
		}
	}
	a.contained(t)
	a.noWrite(t)
}

// Namespace "ovl" has resource groups "ovl-*", which also matches the
// groups of namespace "ovl-x" ("ovl-x-*"). Adopting ovl-x's group from ovl
// is refused: a group belongs to the Tenant with the most specific pattern.
func TestAttack_OverlappingTenantPatterns(t *testing.T) {
	t.Parallel()
	cfg := attackConfig()
	cfg.PolicyConstraints = constraints(t, testenv.Get(t).IssuerURL)
	a := &attack{attacker: "ovl", victim: "ovl-x"}
	a.Stack = stacktest.NewWith(t, cfg, a.attacker, a.victim)
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-data", nil, map[string]string{"owner": "victim"}))
	a.begin()
	rg := stacktest.ResourceGroup(a.attacker, "grab", map[string]string{reconcilers.AnnotationAdopt: "true"}, map[string]string{"owner": "attacker"})
	rg.Spec.AzureName = a.victim + "-data"
	a.Create(t, rg)
	a.denied(t, rg, tenancy.ReasonPolicyDenied, `resource group "ovl-x-data" belongs to tenant "ovl-x"`)
	if tags := a.AzureBody(t, stacktest.RGID(a.victim+"-data"))["tags"].(map[string]any); tags["owner"] != "victim" {
		t.Errorf("the victim's resource group was changed: tags %v", tags)
	}
	a.contained(t)
	a.noWrite(t)
}
