package emulator_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
)

// AKS creates the node resource group its cluster names (or MC_<group>_<cluster>_<location>),
// answers its name in the cluster's GET, refuses one that exists and a change of name, and
// deletes the group with the cluster. Container Apps does the same with an environment's
// infrastructure resource group (ME_<environment>_<group>_<location> by default).
func TestManagedResourceGroups(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "k8s")
	f.createGroup(t, cred, "taken")
	res := f.resources(t, cred)
	const aksAPI, acaAPI, rgAPI = "2024-09-01", "2025-01-01", "2021-04-01"
	cluster := func(nodeRG string) armresources.GenericResource {
		p := map[string]any{"agentPoolProfiles": []any{map[string]any{"name": "system"}}}
		if nodeRG != "" {
			p["nodeResourceGroup"] = nodeRG
		}
		return armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: p}
	}
	exists := func(id string) bool {
		_, err := res.GetByID(ctxT(t), id, rgAPI, nil)
		return err == nil
	}

	aks := rgScope + "k8s/providers/Microsoft.ContainerService/managedClusters/aks"
	got, err := put(t, res, aks, aksAPI, cluster("k8s-nodes"))
	if err != nil {
		t.Fatal(err)
	}
	if p := props(got); p["nodeResourceGroup"] != "k8s-nodes" {
		t.Errorf("nodeResourceGroup %v, want the one asked for", p["nodeResourceGroup"])
	}
	rg, err := res.GetByID(ctxT(t), rgScope+"k8s-nodes", rgAPI, nil)
	if err != nil {
		t.Fatalf("the node resource group was not created: %v", err)
	}
	if rg.ManagedBy == nil || *rg.ManagedBy != aks {
		t.Errorf("node resource group managedBy %v, want the cluster", rg.ManagedBy)
	}
	// The same PUT again, or one without the name, keeps it; another name is refused.
	for _, nodeRG := range []string{"k8s-nodes", ""} {
		if got, err := put(t, res, aks, aksAPI, cluster(nodeRG)); err != nil || props(got)["nodeResourceGroup"] != "k8s-nodes" {
			t.Errorf("PUT with nodeResourceGroup %q: %v %v", nodeRG, err, props(got)["nodeResourceGroup"])
		}
	}
	if _, err := put(t, res, aks, aksAPI, cluster("k8s-other")); err == nil {
		t.Error("the node resource group was renamed")
	} else if _, code := responseError(t, err); code != "PropertyChangeNotAllowed" {
		t.Errorf("renaming: code %s", code)
	}
	// An existing group is not the node resource group of a new cluster.
	if _, err := put(t, res, rgScope+"k8s/providers/Microsoft.ContainerService/managedClusters/aks2", aksAPI, cluster("taken")); err == nil {
		t.Error("a cluster took an existing group as its node resource group")
	} else if _, code := responseError(t, err); code != "InvalidParameter" {
		t.Errorf("existing group: code %s", code)
	}
	// By default, MC_<group>_<cluster>_<location>.
	aks3 := rgScope + "k8s/providers/Microsoft.ContainerService/managedClusters/aks3"
	if got, err := put(t, res, aks3, aksAPI, cluster("")); err != nil || props(got)["nodeResourceGroup"] != "MC_k8s_aks3_westeurope" || !exists(rgScope+"MC_k8s_aks3_westeurope") {
		t.Errorf("default node resource group: %v %v", err, props(got)["nodeResourceGroup"])
	}
	if err := del(t, res, aks, aksAPI); err != nil {
		t.Fatal(err)
	}
	if exists(rgScope + "k8s-nodes") {
		t.Error("the node resource group outlived its cluster")
	}
	if !exists(rgScope + "taken") {
		t.Error("a group the cluster did not create was deleted")
	}

	env := rgScope + "k8s/providers/Microsoft.App/managedEnvironments/env"
	got, err = put(t, res, env, acaAPI, armresources.GenericResource{Location: to.Ptr("West Europe"), Properties: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if p := props(got); p["infrastructureResourceGroup"] != "ME_env_k8s_westeurope" || !exists(rgScope+"ME_env_k8s_westeurope") {
		t.Errorf("default infrastructure resource group %v", p["infrastructureResourceGroup"])
	}
	env2 := rgScope + "k8s/providers/Microsoft.App/managedEnvironments/env2"
	if got, err := put(t, res, env2, acaAPI, armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"infrastructureResourceGroup": "k8s-infra"}}); err != nil ||
		props(got)["infrastructureResourceGroup"] != "k8s-infra" || !exists(rgScope+"k8s-infra") {
		t.Errorf("infrastructure resource group asked for: %v %v", err, props(got)["infrastructureResourceGroup"])
	}
	for _, id := range []string{env, env2} {
		if err := del(t, res, id, acaAPI); err != nil {
			t.Fatal(err)
		}
	}
	if exists(rgScope+"k8s-infra") || exists(rgScope+"ME_env_k8s_westeurope") {
		t.Error("an infrastructure resource group outlived its environment")
	}
}
