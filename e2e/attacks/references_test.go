package attacks_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/controller-runtime/pkg/client"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/tenancy"
)

// This file attacks the ARM IDs a spec names besides its own resource: one test
// per class of reference (a subnet, a private endpoint's target, a workspace
// receiving logs, the identity a resource runs as, the identity a credential
// federates, a role definition). Each is refused before any ARM call.

// manifest decodes a typed object of ns from YAML.
func manifest(t *testing.T, a *attack, ns, doc string) azurev1alpha1.Resource {
	t.Helper()
	obj, _, err := serializer.NewCodecFactory(a.Env.Scheme).UniversalDeserializer().Decode([]byte(doc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := obj.(azurev1alpha1.Resource)
	r.SetNamespace(ns)
	return r
}

func resourceID(rg, typ, name string) string {
	return stacktest.RGID(rg) + "/providers/" + typ + "/" + name
}

// A network interface in the attacker's group on a subnet of the victim's
// network: it would put the attacker's machines inside the victim's network.
func TestAttack_ReferenceToAnotherTenantsSubnet(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rsub")
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	victimSubnet := resourceID(a.victim+"-net", "Microsoft.Network/virtualNetworks", "vnet") + "/subnets/default"
	nic := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkInterface
metadata: {name: rsub-nic}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  ipConfigurations:
    - name: ipconfig1
      privateIPAllocationMethod: Dynamic
      subnet: {reference: {armId: `+victimSubnet+`}}
`)
	a.Create(t, nic)
	a.denied(t, nic, tenancy.ReasonPolicyDenied, "properties.ipConfigurations[0].properties.subnet.id refers to "+victimSubnet,
		`outside tenant "`+a.attacker+`"'s resource groups`, "spec.sharedResources")
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/networkInterfaces/rsub-nic")
}

// A private endpoint from the attacker's subnet to the victim's key vault: a
// private path into another tenant's resource.
func TestAttack_PrivateEndpointToAnotherTenantsResource(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rpe")
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	ownSubnet := resourceID(a.attacker+"-rg", "Microsoft.Network/virtualNetworks", "vnet") + "/subnets/default"
	vault := resourceID(a.victim+"-rg", "Microsoft.KeyVault/vaults", "victim-vault")
	pe := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: PrivateEndpoint
metadata: {name: rpe-pe}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  subnet: {reference: {armId: `+ownSubnet+`}}
  privateLinkServiceConnections:
    - name: vault
      groupIds: [vault]
      privateLinkServiceReference: {armId: `+vault+`}
`)
	a.Create(t, pe)
	a.denied(t, pe, tenancy.ReasonPolicyDenied, "privateLinkServiceId refers to "+vault)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/privateEndpoints/rpe-pe")
}

// Application Insights sending the attacker's telemetry into the victim's Log
// Analytics workspace (or reading the victim's through it).
func TestAttack_LogsToAnotherTenantsWorkspace(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rlog")
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	workspace := resourceID(a.victim+"-logs", "Microsoft.OperationalInsights/workspaces", "central")
	component := manifest(t, a, a.attacker, `
apiVersion: insights.aztenant.io/v1alpha1
kind: Component
metadata: {name: rlog-insights}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  kind: web
  Application_Type: web
  IngestionMode: LogAnalytics
  publicNetworkAccessForIngestion: Disabled
  publicNetworkAccessForQuery: Disabled
  WorkspaceResourceReference: {armId: `+workspace+`}
`)
	a.Create(t, component)
	a.denied(t, component, tenancy.ReasonPolicyDenied, "properties.WorkspaceResourceId refers to "+workspace)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/components/rlog-insights")
}

func cluster(t *testing.T, a *attack, name, identityRef string) azurev1alpha1.Resource {
	return manifest(t, a, a.attacker, `
apiVersion: containerservice.aztenant.io/v1alpha1
kind: ManagedCluster
metadata: {name: `+name+`}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  dnsPrefix: `+name+`
  agentPoolProfiles:
    - {name: system, mode: System, count: 1, vmSize: Standard_D2s_v5}
  identity:
    type: UserAssigned
    userAssignedIdentities:
      - reference: {`+identityRef+`}
`)
}

// A cluster of the attacker's running as the victim's managed identity: its
// nodes would act in Azure with the victim's rights.
func TestAttack_RunAsAnotherNamespacesIdentity(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "ruai")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-rg", nil, nil))
	a.ready(t, &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.victim, Name: "app"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: a.victim + "-rg"}, Location: stacktest.Location},
	})
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	victimID := resourceID(a.victim+"-rg", "Microsoft.ManagedIdentity/userAssignedIdentities", "app")
	mc := cluster(t, a, "ruai-aks", "armId: "+victimID)
	a.Create(t, mc)
	a.denied(t, mc, tenancy.ReasonPolicyDenied, "identity.userAssignedIdentities names user-assigned identity "+victimID,
		`no UserAssignedIdentity of namespace "`+a.attacker+`" manages`)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/managedClusters/ruai-aks")
}

// platformIdentity creates, with the platform's credential, a user-assigned
// identity in rg that no object of any namespace manages (an identity of the
// platform's, or of another namespace of the same team).
func platformIdentity(t *testing.T, a *attack, rg, name string) string {
	t.Helper()
	uais, err := armmsi.NewUserAssignedIdentitiesClient(subID, a.PlatformCredential(t), &arm.ClientOptions{ClientOptions: a.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uais.CreateOrUpdate(t.Context(), rg, name, armmsi.Identity{Location: to.Ptr(stacktest.Location)}, nil); err != nil {
		t.Fatal(err)
	}
	return resourceID(rg, "Microsoft.ManagedIdentity/userAssignedIdentities", name)
}

// An identity inside the attacker's own resource group that its namespace does
// not manage: being in bounds is not enough to run as it. The namespace's own
// identity, by name, is.
func TestAttack_RunAsIdentityTheNamespaceDoesNotManage(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rown")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	foreign := platformIdentity(t, a, rg, "platform-deployer")
	a.begin()
	mc := cluster(t, a, "rown-aks", "armId: "+foreign)
	a.Create(t, mc)
	a.denied(t, mc, tenancy.ReasonPolicyDenied, "names user-assigned identity "+foreign, `no UserAssignedIdentity of namespace "`+a.attacker+`" manages`)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/managedClusters/rown-aks")

	// Its own identity, by name or by the ID of its object, is the namespace's to run as.
	a.ready(t, &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "app"},
		Spec:       managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: stacktest.Location},
	})
	a.ready(t, cluster(t, a, "rown-own", "name: app"))
	a.ready(t, cluster(t, a, "rown-byid", "armId: "+resourceID(rg, "Microsoft.ManagedIdentity/userAssignedIdentities", "app")))
}

// A federated credential on an identity the namespace does not manage, trusting
// the attacker's own service account (which the federation rules allow): the
// attacker's pods would get that identity's tokens.
func TestAttack_FederateIdentityTheNamespaceDoesNotManage(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rfic")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	foreign := platformIdentity(t, a, rg, "platform-deployer")
	a.begin()
	fic := federatedCredential(a.attacker, "rfic-trust", "", a.Env.IssuerURL, "system:serviceaccount:"+a.attacker+":workload")
	fic.Spec.Owner = &azurev1alpha1.OwnerReference{ARMID: foreign}
	a.Create(t, fic)
	a.denied(t, fic, tenancy.ReasonPolicyDenied, "spec.owner.armId names user-assigned identity "+foreign)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/federatedIdentityCredentials/rfic-trust")
}

// A role assignment naming a role definition of a subscription the Tenant does
// not allow (where a custom role could say anything).
func TestAttack_RoleDefinitionInAnotherSubscription(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rrd")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.begin()
	other := "/subscriptions/9d1c0f3e-2b7a-4c6d-8e5f-0a1b2c3d4e5f/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	ra := roleAssignment(a.attacker, "rrd-reader", authorizationv1alpha1.RoleAssignmentOwner{Name: rg},
		authorizationv1alpha1.RoleDefinitionReference{ARMID: other}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, tenancy.ReasonPolicyDenied, "properties.roleDefinitionId refers to "+other, `in subscription "9d1c0f3e-2b7a-4c6d-8e5f-0a1b2c3d4e5f"`)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/roleAssignments")
}

// The platform shares its hub network with the attacker's Tenant: a network
// interface on a hub subnet is made, and the hub stays the platform's. The
// attacker can neither add a subnet to it nor change one.
func TestAttack_SharedHubIsOnlyReferenced(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rhub")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	hubRG := "platform-hub"
	rgs := stacktest.RGID(hubRG)
	a.PlatformPut(t, rgs, "2024-03-01", `{"location":"westeurope"}`)
	hub := resourceID(hubRG, "Microsoft.Network/virtualNetworks", "hub")
	a.PlatformPut(t, hub, "2025-05-01", `{"location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[{"name":"shared","properties":{"addressPrefix":"10.0.1.0/24"}}]}}`)
	var tenant tenancyv1alpha1.Tenant
	if err := a.Client.Get(t.Context(), client.ObjectKey{Name: a.attacker}, &tenant); err != nil {
		t.Fatal(err)
	}
	base := tenant.DeepCopy()
	tenant.Spec.SharedResources = []tenancyv1alpha1.SharedResource{{ARMID: hub, Description: "the hub network; spokes attach NICs and private endpoints to its shared subnet"}}
	if err := a.Client.Patch(t.Context(), &tenant, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	a.begin()
	shared := hub + "/subnets/shared"
	nic := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkInterface
metadata: {name: rhub-nic}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  ipConfigurations:
    - name: ipconfig1
      privateIPAllocationMethod: Dynamic
      subnet: {reference: {armId: `+shared+`}}
`)
	a.ready(t, nic)
	body := a.AzureBody(t, resourceID(rg, "Microsoft.Network/networkInterfaces", "rhub-nic"))
	if got := fmt.Sprint(body["properties"].(map[string]any)["ipConfigurations"]); !strings.Contains(strings.ToLower(got), strings.ToLower(shared)) {
		t.Errorf("the NIC in Azure is not on the shared subnet: %s", got)
	}

	// Writing the hub itself is still outside the Tenant's bounds.
	subnet := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: VirtualNetworksSubnet
metadata: {name: rhub-grab}
spec:
  owner: {armId: `+hub+`}
  azureName: shared
  addressPrefix: 10.0.9.0/24
`)
	a.Create(t, subnet)
	a.denied(t, subnet, tenancy.ReasonPolicyDenied, `resource group "`+hubRG+`" is not allowed for tenant "`+a.attacker+`"`)
	for _, e := range a.Emu.Audit(emulator.AuditFilter{Since: a.since, Service: "arm"}) {
		if e.Method != http.MethodGet && strings.Contains(strings.ToLower(e.Path), "/virtualnetworks/hub") {
			t.Errorf("ARM %s %s changed the shared hub", e.Method, e.Path)
		}
	}
	a.contained(t)
}
