package attacks_test

import (
	"testing"

	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// This file attacks the names, not ARM IDs, that a spec gives Azure and that
// Azure turns into resources or destinations (a cluster's node resource
// group, an environment's infrastructure group, a capture's Data Lake
// account), and the tags the operator keeps for itself. Each name is refused
// before any ARM call; each tag by the API server.

// otherSubscription is a subscription neither Tenant has.
const otherSubscription = "0b0b0b0b-0000-4000-8000-000000000001"

// An AKS cluster in the attacker's group whose node resource group is named
// in the victim's pattern, then the victim's own group: AKS would create the
// group (and the attacker's nodes in it) where the victim's Tenant says the
// victim's resources are.
func TestAttack_NodeResourceGroupInAnotherTenantsGroup(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "nrg")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-rg", nil, nil))
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	for name, nodeRG := range map[string]string{"nrg-new": a.victim + "-nodes", "nrg-own": a.victim + "-rg"} {
		mc := manifest(t, a, a.attacker, `
apiVersion: containerservice.aztenant.io/v1alpha1
kind: ManagedCluster
metadata: {name: `+name+`}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  dnsPrefix: `+name+`
  nodeResourceGroup: `+nodeRG+`
  agentPoolProfiles:
    - {name: system, mode: System, count: 1, vmSize: Standard_D2s_v5}
`)
		a.Create(t, mc)
		a.denied(t, mc, tenancy.ReasonPolicyDenied, "properties.nodeResourceGroup refers to "+stacktest.RGID(nodeRG),
			`outside tenant "`+a.attacker+`"'s resource groups`, "spec.sharedResources")
		a.noCall(t, "/managedClusters/"+name)
		a.noCall(t, "/resourceGroups/"+nodeRG)
	}
	a.contained(t)
	a.noWrite(t)
}

// A Container Apps environment whose infrastructure resource group is named
// in the victim's pattern: Container Apps would create it there.
func TestAttack_InfrastructureResourceGroupInAnotherTenantsPattern(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "irg")
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.begin()
	env := manifest(t, a, a.attacker, `
apiVersion: app.aztenant.io/v1alpha1
kind: ManagedEnvironment
metadata: {name: irg-env}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  infrastructureResourceGroup: `+a.victim+`-infra
  workloadProfiles:
    - {name: Consumption, workloadProfileType: Consumption}
`)
	a.Create(t, env)
	a.denied(t, env, tenancy.ReasonPolicyDenied, "properties.infrastructureResourceGroup refers to "+stacktest.RGID(a.victim+"-infra"),
		`outside tenant "`+a.attacker+`"'s resource groups`)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/managedEnvironments/irg-env")
	a.noCall(t, "/resourceGroups/"+a.victim+"-infra")
}

// An event hub of the attacker's whose Capture writes its events into a Data
// Lake Store account, by name, of a subscription the attacker's Tenant does
// not have: Event Hubs would write there with its own rights.
func TestAttack_CaptureToDataLakeInAnotherSubscription(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "dlk")
	a.ready(t, stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil))
	a.ready(t, manifest(t, a, a.attacker, `
apiVersion: eventhub.aztenant.io/v1alpha1
kind: Namespace
metadata: {name: dlk-ns}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  publicNetworkAccess: Disabled
  sku: {name: Standard, tier: Standard, capacity: 1}
`))
	a.begin()
	hub := manifest(t, a, a.attacker, `
apiVersion: eventhub.aztenant.io/v1alpha1
kind: NamespacesEventhub
metadata: {name: dlk-hub}
spec:
  owner: {name: dlk-ns}
  partitionCount: 2
  captureDescription:
    enabled: true
    encoding: Avro
    intervalInSeconds: 300
    destination:
      name: EventHubArchive.AzureDataLake
      dataLakeAccountName: victimlake
      dataLakeSubscriptionId: `+otherSubscription+`
      dataLakeFolderPath: /capture
      archiveNameFormat: "{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}"
`)
	a.Create(t, hub)
	a.denied(t, hub, tenancy.ReasonPolicyDenied, "properties.captureDescription.destination.properties.dataLakeAccountName names Microsoft.DataLakeStore/accounts \"victimlake\" in subscription "+otherSubscription,
		`outside tenant "`+a.attacker+`"`)
	a.contained(t)
	a.noWrite(t)
	a.noCall(t, "/eventhubs/dlk-hub")
}

// Tags the operator keeps for itself, in a spec: the owner marker in
// capitals (Azure's tag names are case-insensitive, so it would be the
// marker) and onboarding's tag naming the victim's Tenant (the resource
// would be refused to its own object and left in Azure on delete). The API
// server refuses both, on hand-written and generated kinds, whoever writes
// them (the CRDs' validation, not RBAC).
func TestAttack_ReservedTagsInSpec(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rtag")
	for name, tags := range map[string]map[string]string{
		"rtag-owner":   {"AZTENANT.IO-OWNER": "00000000.00000000000000000000000000000000"},
		"rtag-onboard": {"aztenant.io-onboarded-by": a.victim, "env": "prod"},
	} {
		rg := stacktest.ResourceGroup(a.attacker, name, nil, tags)
		rg.Spec.AzureName = a.attacker + "-" + name
		rejected(t, a.Client.Create(t.Context(), rg), "spec.tags", reconcilers.ReservedTagsMessage)
	}
	vnet := manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: VirtualNetwork
metadata: {name: rtag-vnet}
spec:
  owner: {name: `+a.attacker+`-rg}
  location: westeurope
  addressSpace: {addressPrefixes: [10.9.0.0/16]}
  tags: {Aztenant.IO-Created-For: x}
`)
	rejected(t, a.Client.Create(t.Context(), vnet), "spec.tags", reconcilers.ReservedTagsMessage)
	a.contained(t)
	a.noWrite(t)
}
