package emulator_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// A cluster's agentPoolProfiles and its agentPools children are one set, as in AKS: a pool
// of the cluster's PUT is readable at its own URL, a pool added at its own URL is listed by
// the cluster, a cluster PUT that leaves it out keeps it, one that introduces a pool is
// refused, and a pool deleted at its URL leaves the list.
func TestAgentPoolsAreTheClustersPools(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "aks")
	res := f.resources(t, cred)
	const api = "2024-09-01"
	cluster := rgScope + "aks/providers/Microsoft.ContainerService/managedClusters/c1"
	clusterBody := func(pools ...string) armresources.GenericResource {
		var list []any
		for _, p := range pools {
			list = append(list, map[string]any{"name": p, "count": 1, "vmSize": "Standard_D2s_v5"})
		}
		return armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"dnsPrefix": "c1", "agentPoolProfiles": list}}
	}
	poolNames := func() []string {
		got, err := res.GetByID(ctxT(t), cluster, api, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range props(got.GenericResource)["agentPoolProfiles"].([]any) {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		return names
	}
	if _, err := put(t, res, cluster, api, clusterBody("system")); err != nil {
		t.Fatal(err)
	}
	if _, err := res.GetByID(ctxT(t), cluster+"/agentPools/system", api, nil); err != nil {
		t.Fatalf("the cluster's pool is not readable at its own URL: %v", err)
	}

	got, err := put(t, res, cluster+"/agentPools/user1", api, armresources.GenericResource{Properties: map[string]any{"count": 2, "vmSize": "Standard_D4s_v5"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := props(got); p["mode"] != "User" || p["orchestratorVersion"] != "1.33.2" {
		t.Errorf("pool defaults: %v", p)
	}
	if names := poolNames(); len(names) != 2 || names[0] != "system" || names[1] != "user1" {
		t.Fatalf("cluster pools after an agentPools PUT: %v", names)
	}

	// A cluster PUT naming only its first pool keeps the other.
	if _, err := put(t, res, cluster, api, clusterBody("system")); err != nil {
		t.Fatal(err)
	}
	if names := poolNames(); len(names) != 2 {
		t.Fatalf("a cluster PUT without user1 removed it: %v", names)
	}
	// A pool the cluster does not have cannot come through the cluster.
	_, err = put(t, res, cluster, api, clusterBody("system", "gpu"))
	if err == nil {
		t.Fatal("a cluster PUT introduced a pool")
	}
	if status, code := responseError(t, err); status != 400 || code != "BadRequest" {
		t.Errorf("refusal %d %s, want 400 BadRequest", status, code)
	}

	if err := del(t, res, cluster+"/agentPools/user1", api); err != nil {
		t.Fatal(err)
	}
	if names := poolNames(); len(names) != 1 || names[0] != "system" {
		t.Errorf("cluster pools after user1's DELETE: %v", names)
	}
}

// A pool's value Azure changes after Succeeded (a count the autoscaler moved) is the
// cluster's too, and a cluster PUT that leaves the pool out does not put the old value
// back: the pool is written once, by its own PUT.
func TestAgentPoolChangedLaterIsTheClustersToo(t *testing.T) {
	f := newFixture(t)
	const api = "2024-09-01"
	res, cluster, clusterBody := systemPoolCluster(t, f, "aksl", api)
	if err := f.emu.SetAnswerTransforms(emulator.AnswerTransform{Type: "Microsoft.ContainerService/managedClusters/agentPools",
		Path: "properties.count", Op: emulator.OpChangeAfterSucceeded, Value: json.RawMessage(`3`)}); err != nil {
		t.Fatal(err)
	}
	pool := cluster + "/agentPools/user1"
	if _, err := put(t, res, pool, api, armresources.GenericResource{Properties: map[string]any{"count": 2, "vmSize": "Standard_D4s_v5"}}); err != nil {
		t.Fatal(err)
	}
	count := func(id string) any {
		got, err := res.GetByID(ctxT(t), id, api, nil)
		if err != nil {
			t.Fatal(err)
		}
		if id == pool {
			return props(got.GenericResource)["count"]
		}
		for _, p := range props(got.GenericResource)["agentPoolProfiles"].([]any) {
			if p.(map[string]any)["name"] == "user1" {
				return p.(map[string]any)["count"]
			}
		}
		t.Fatalf("the cluster does not list user1: %v", props(got.GenericResource))
		return nil
	}
	// The first GET answers Succeeded; the change is made at the next request.
	count(pool)
	if got := count(pool); fmt.Sprint(got) != "3" {
		t.Fatalf("the pool's count after Succeeded: %v, want Azure's 3", got)
	}
	if got := count(cluster); fmt.Sprint(got) != "3" {
		t.Errorf("the cluster lists user1 with count %v, want the pool's 3", got)
	}
	if _, err := put(t, res, cluster, api, clusterBody); err != nil {
		t.Fatal(err)
	}
	if got := count(pool); fmt.Sprint(got) != "3" {
		t.Errorf("a cluster PUT without user1 put its count back to %v, want 3 kept", got)
	}
}

// A cluster PUT that leaves a pool out keeps it as it stands: Azure's answer to the PUT
// (here, what Azure's examples add to each of a cluster's pools) is about the pools it
// names, and does not rewrite the pool it left alone.
func TestClusterPutAnswersOnlyThePoolsItNames(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.AnswerFromExamples = true })
	const api = "2025-10-01"
	res, cluster, clusterBody := systemPoolCluster(t, f, "akse", api)
	pool := cluster + "/agentPools/user1"
	if _, err := put(t, res, pool, api, armresources.GenericResource{Properties: map[string]any{"count": 2, "vmSize": "Standard_D4s_v5", "mode": "User"}}); err != nil {
		t.Fatal(err)
	}
	body := func() map[string]any {
		b, err := f.emu.ResourceBody(pool)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := body()
	if _, err := put(t, res, cluster, api, clusterBody); err != nil {
		t.Fatal(err)
	}
	after := body()
	if !reflect.DeepEqual(before["properties"], after["properties"]) {
		t.Errorf("a cluster PUT without user1 rewrote it:\nbefore %v\nafter  %v", before["properties"], after["properties"])
	}
}

// systemPoolCluster creates resource group rg and in it cluster c1 with one pool, system,
// as the platform: the ARM client, the cluster's ID and the body it was put with.
func systemPoolCluster(t *testing.T, f *fixture, rg, api string) (*armresources.Client, string, armresources.GenericResource) {
	t.Helper()
	cred := f.platformCred(t)
	f.createGroup(t, cred, rg)
	res := f.resources(t, cred)
	cluster := rgScope + rg + "/providers/Microsoft.ContainerService/managedClusters/c1"
	body := armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"dnsPrefix": "c1",
		"agentPoolProfiles": []any{map[string]any{"name": "system", "count": 1, "vmSize": "Standard_D2s_v5", "mode": "System"}}}}
	if _, err := put(t, res, cluster, api, body); err != nil {
		t.Fatal(err)
	}
	return res, cluster, body
}
