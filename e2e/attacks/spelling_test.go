package attacks_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/tenancy"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file attacks the reference guard with spellings of an ARM ID that a
// resource provider may still read as the ID: a plain string field (an AI
// Services account's network injection subnet, not a reference the generator
// knows) carrying the victim's subnet with a leading space, without its
// leading slash, in upper case, inside a URL or percent-encoded; and an ID
// appended to one the Tenant shares.

// injected is an AI Services account whose agents run in subnet.
func injected(t *testing.T, a *attack, name, rg, subnet string) azurev1alpha1.Resource {
	t.Helper()
	return manifest(t, a, a.attacker, fmt.Sprintf(`
apiVersion: cognitiveservices.aztenant.io/v1alpha1
kind: Account
metadata: {name: %s}
spec:
  owner: {name: %s}
  location: westeurope
  kind: AIServices
  sku: {name: S0}
  publicNetworkAccess: Disabled
  customSubDomainName: %s
  networkInjections:
    - scenario: agent
      subnetArmId: %q
`, name, rg, name, subnet))
}

func TestAttack_SpelledReferenceToAnotherTenantsSubnet(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rspell")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.begin()
	victimSubnet := resourceID(a.victim+"-net", "Microsoft.Network/virtualNetworks", "vnet") + "/subnets/default"
	spellings := map[string]string{
		"space":   " " + victimSubnet,
		"noslash": victimSubnet[1:],
		"upper":   strings.ToUpper(victimSubnet),
		"url":     "https://management.azure.com" + victimSubnet + "?api-version=2024-05-01",
		"encoded": url.PathEscape(victimSubnet),
	}
	objs := map[string]azurev1alpha1.Resource{}
	for name, spelled := range spellings {
		objs[name] = injected(t, a, "rspell-"+name, rg, spelled)
		a.Create(t, objs[name])
	}
	for name, obj := range objs {
		want := victimSubnet
		if name == "upper" {
			want = strings.ToUpper(victimSubnet)
		}
		a.denied(t, obj, tenancy.ReasonPolicyDenied, "properties.networkInjections[0].subnetArmId refers to "+want,
			`outside tenant "`+a.attacker+`"'s resource groups`)
	}
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/accounts/rspell-space")
}

// The Tenant shares a private DNS zone. The victim's subnet ID appended to
// the zone's starts with a shared ID, but is not one: it is refused as
// malformed, and the subnet it carries is bounded on its own.
func TestAttack_IDAppendedToASharedResource(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rappend")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	zone := resourceID("platform-dns", "Microsoft.Network/privateDnsZones", "privatelink.blob.core.windows.net")
	var tenant tenancyv1alpha1.Tenant
	if err := a.Client.Get(t.Context(), client.ObjectKey{Name: a.attacker}, &tenant); err != nil {
		t.Fatal(err)
	}
	base := tenant.DeepCopy()
	tenant.Spec.SharedResources = []tenancyv1alpha1.SharedResource{{ARMID: zone, Description: "the platform's blob private DNS zone"}}
	if err := a.Client.Patch(t.Context(), &tenant, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	a.begin()
	victimSubnet := resourceID(a.victim+"-net", "Microsoft.Network/virtualNetworks", "vnet") + "/subnets/default"
	nic := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkInterface
metadata: {name: rappend-nic}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  ipConfigurations:
    - name: ipconfig1
      privateIPAllocationMethod: Dynamic
      subnet: {reference: {armId: `+zone+victimSubnet+`}}
`)
	a.Create(t, nic)
	a.denied(t, nic, tenancy.ReasonPolicyDenied, "properties.ipConfigurations[0].properties.subnet.id", "another ID starts inside it")
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/networkInterfaces/rappend-nic")
}
