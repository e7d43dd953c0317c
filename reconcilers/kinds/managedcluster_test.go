package kinds_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

func managedClusterID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.ContainerService/managedClusters/" + name
}

func managedCluster(ns, name, rg string, annotations map[string]string) *containerservicev1alpha1.ManagedCluster {
	return &containerservicev1alpha1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: containerservicev1alpha1.ManagedClusterSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: "westeurope", DNSPrefix: name,
			AgentPoolProfiles: []containerservicev1alpha1.ManagedClusterAgentPoolProfile{
				{Name: "system", Mode: "System", Count: ptr.To[int32](1), VMSize: "Standard_D2s_v5"},
			},
		},
	}
}

// nodeCount reads the first pool's count from the emulator's state.
func (s *stack) nodeCount(t *testing.T, id string) float64 {
	t.Helper()
	pools := s.AzureBody(t, id)["properties"].(map[string]any)["agentPoolProfiles"].([]any)
	return pools[0].(map[string]any)["count"].(float64)
}

// The AKS drift story: someone scales the system pool from 1 to 5 nodes in the
// portal; at the next sync aztenant scales it back to 1 with exactly one PUT.
// Around it: create with one PUT (through Azure-AsyncOperation polling),
// kubeconfigs exported to a Secret the cluster owns, a spec change writes
// once, and deletion removes the cluster.
func TestManagedClusterNodeCountDrift(t *testing.T) {
	t.Parallel()
	const ns = "aks"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "aks-rg", nil, nil))
	mc := managedCluster(ns, "aks-app", "aks-rg", map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
	mc.Spec.OperatorSpec = &containerservicev1alpha1.ManagedClusterOperatorSpec{Secrets: &containerservicev1alpha1.ManagedClusterOperatorSecrets{
		UserCredentials:  &azurev1alpha1.SecretDestination{Name: "aks-app-kubeconfig", Key: "user"},
		AdminCredentials: &azurev1alpha1.SecretDestination{Name: "aks-app-kubeconfig", Key: "admin"},
	}}
	s.Create(t, mc)
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id, path := managedClusterID("aks-rg", "aks-app"), "/managedClusters/aks-app"
	puts := func() int { return strings.Count(methods(s.ARMCalls(path)), "PUT") }
	if n := puts(); n != 1 {
		t.Fatalf("%d PUTs for the create, want 1", n)
	}
	if mc.Status.FQDN == "" || mc.Status.NodeResourceGroup != "MC_aks-rg_aks-app_westeurope" || mc.Status.PowerState != "Running" {
		t.Errorf("status %+v", mc.Status)
	}

	data, sec := s.secretData(t, ns, "aks-app-kubeconfig")
	for _, k := range []string{"user", "admin"} {
		if !strings.Contains(data[k], "server: https://"+mc.Status.FQDN+":443") {
			t.Errorf("%s kubeconfig does not point at the cluster:\n%s", k, data[k])
		}
	}
	if !strings.Contains(data["admin"], "clusterAdmin_aks-app") || !strings.Contains(data["user"], "clusterUser_aks-app") {
		t.Error("the admin and user kubeconfigs are mixed up")
	}
	if !metav1.IsControlledBy(sec, mc) {
		t.Errorf("the Secret is not owned by the cluster: %+v", sec.OwnerReferences)
	}

	// Syncs every second find nothing to do.
	s.ReadAgain(t, id, 2, nil)
	if n := puts(); n != 1 {
		t.Fatalf("%d PUTs after idle syncs, want still 1", n)
	}

	// Scaled to 5 in the portal ...
	body := s.AzureBody(t, id)
	pools := body["properties"].(map[string]any)["agentPoolProfiles"].([]any)
	pools[0].(map[string]any)["count"] = 5
	patch, _ := json.Marshal(map[string]any{"properties": map[string]any{"agentPoolProfiles": pools}})
	_, err := s.Emu.PatchResource(ctx, id, patch)
	must(t, err)
	if got := s.nodeCount(t, id); got != 5 {
		t.Fatalf("the out-of-band scale did not land: %v", got)
	}
	// ... and back to 1 at the next sync, with one corrective PUT.
	until(t, "node count back to 1", func() bool { return s.nodeCount(t, id) == 1 })
	s.ReadAgain(t, id, 2, nil) // the syncs after the corrective PUT write nothing more
	if n := puts(); n != 2 {
		t.Errorf("%d PUTs after the drift, want exactly one corrective PUT (2 in all)", n)
	}
	if got := s.nodeCount(t, id); got != 1 {
		t.Errorf("node count %v after the correction", got)
	}

	// Scaling in the spec writes exactly once.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(mc), mc))
	mc.Spec.AgentPoolProfiles[0].Count = ptr.To[int32](3)
	must(t, s.Client.Update(ctx, mc))
	until(t, "3 nodes in Azure", func() bool { return s.nodeCount(t, id) == 3 })
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.ReadAgain(t, id, 2, nil)
	if n := puts(); n != 3 {
		t.Errorf("%d PUTs after one spec change, want 3 in all", n)
	}

	must(t, s.Client.Delete(ctx, mc))
	until(t, "cluster object gone", func() bool { return s.Gone(mc) })
	if _, err := s.Emu.Resource(id); err == nil {
		t.Error("the cluster still exists in Azure")
	}
}

// A cluster naming its node resource group (in the Tenant's bounds) converges:
// AKS creates the group and answers its name, so the cluster is written once
// and then only read at every sync (the emulator once answered another name,
// and the operator wrote the cluster again at every sync while showing it
// Ready). Deleting the cluster deletes the group with it.
func TestManagedClusterNamedNodeResourceGroupIsSteady(t *testing.T) {
	t.Parallel()
	const ns = "aksnrg"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "aksnrg-rg", nil, nil))
	mc := managedCluster(ns, "aks-nrg", "aksnrg-rg", map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
	mc.Spec.NodeResourceGroup = "aksnrg-nodes"
	s.Create(t, mc)
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id, nodeRG := managedClusterID("aksnrg-rg", "aks-nrg"), rgID("aksnrg-nodes")
	if mc.Status.NodeResourceGroup != "aksnrg-nodes" {
		t.Errorf("status.nodeResourceGroup %q", mc.Status.NodeResourceGroup)
	}
	if _, err := s.Emu.Resource(nodeRG); err != nil {
		t.Errorf("AKS did not create the node resource group: %v", err)
	}
	puts := func() int { return strings.Count(methods(s.ARMCalls("/managedClusters/aks-nrg")), "PUT") }
	// Five more drift checks (a second apart) find nothing to write.
	reads := s.Reads(id)
	until(t, "five drift checks", func() bool { return s.Reads(id) >= reads+5 })
	if n := puts(); n != 1 {
		t.Errorf("%d PUTs after five drift checks, want the create's only", n)
	}
	must(t, s.Client.Delete(ctx, mc))
	until(t, "cluster object gone", func() bool { return s.Gone(mc) })
	if _, err := s.Emu.Resource(nodeRG); err == nil {
		t.Error("the node resource group outlived its cluster")
	}
}

// An operator that dies while Azure is still creating a cache and a cluster
// (each taking 2s) leaves the operations' resume tokens in status; the next
// operator continues them instead of writing again: one PUT each, then Ready.
func TestResumeAfterOperatorRestart(t *testing.T) {
	t.Parallel()
	const ns = "resume"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "resume-rg", nil, nil))
	// The operations stay in progress until the operator has stopped and started
	// again (a short Duration raced the stop under -race).
	s.Emu.SetLRO("Microsoft.Cache/redis", emulator.LROConfig{Duration: emulator.Duration(time.Hour)})
	s.Emu.SetLRO("Microsoft.ContainerService/managedClusters", emulator.LROConfig{Duration: emulator.Duration(time.Hour)})
	r := redisCache(ns, "resume-cache", "resume-rg", "")
	mc := managedCluster(ns, "resume-aks", "resume-rg", nil)
	s.Create(t, r)
	s.Create(t, mc)
	objs := []azurev1alpha1.Resource{r, mc}
	until(t, "resume tokens in status", func() bool {
		for _, o := range objs {
			must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
			if o.AzureStatus().ResumeToken == "" {
				return false
			}
		}
		return true
	})
	s.StopManager()
	for _, o := range objs {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
		if o.AzureStatus().ResumeToken == "" {
			t.Fatalf("%s: the resume token was lost when the operator stopped", o.GetName())
		}
	}
	s.StartManager(t)
	s.Emu.FinishOperations()
	s.WaitReady(t, r, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	for _, path := range []string{"/redis/resume-cache", "/managedClusters/resume-aks"} {
		if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 1 {
			t.Errorf("%s: %d PUTs, want exactly 1 across the restart", path, n)
		}
	}
	for _, o := range objs {
		if o.AzureStatus().ResumeToken != "" || o.AzureStatus().ProvisioningState != "Succeeded" {
			t.Errorf("%s: status %+v", o.GetName(), o.AzureStatus())
		}
	}
}

// poolCounts reads each pool's count by name from the emulator's state, and
// the names in the order Azure returns them.
func (s *stack) poolCounts(t *testing.T, id string) (map[string]float64, []string) {
	t.Helper()
	counts, order := map[string]float64{}, []string(nil)
	for _, p := range s.AzureBody(t, id)["properties"].(map[string]any)["agentPoolProfiles"].([]any) {
		pool := p.(map[string]any)
		counts[pool["name"].(string)] = pool["count"].(float64)
		order = append(order, pool["name"].(string))
	}
	return counts, order
}

// Azure does not promise to list agent pools in the order the spec does. A
// two-pool cluster whose pools Azure returns reversed is not drift: syncs
// every second write nothing. A pool scaled in the portal is still found by
// its name and scaled back with one PUT.
func TestManagedClusterPoolOrder(t *testing.T) {
	t.Parallel()
	const ns = "aks-order"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "aks-order-rg", nil, nil))
	mc := managedCluster(ns, "aks-two", "aks-order-rg", map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
	mc.Spec.AgentPoolProfiles = append(mc.Spec.AgentPoolProfiles,
		containerservicev1alpha1.ManagedClusterAgentPoolProfile{Name: "user", Mode: "User", Count: ptr.To[int32](2), VMSize: "Standard_D4s_v5"})
	s.Create(t, mc)
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id, path := managedClusterID("aks-order-rg", "aks-two"), "/managedClusters/aks-two"
	puts := func() int { return strings.Count(methods(s.ARMCalls(path)), "PUT") }
	if n := puts(); n != 1 {
		t.Fatalf("%d PUTs for the create, want 1", n)
	}

	// Azure now lists the pools the other way round.
	body := s.AzureBody(t, id)
	pools := body["properties"].(map[string]any)["agentPoolProfiles"].([]any)
	reversed := []any{pools[1], pools[0]}
	patch, _ := json.Marshal(map[string]any{"properties": map[string]any{"agentPoolProfiles": reversed}})
	_, err := s.Emu.PatchResource(ctx, id, patch)
	must(t, err)
	if _, order := s.poolCounts(t, id); strings.Join(order, ",") != "user,system" {
		t.Fatalf("the emulator lists the pools as %v, want user,system", order)
	}
	reads := s.Reads(id)
	until(t, "two syncs of the reversed pools", func() bool { return s.Reads(id) >= reads+2 })
	if n := puts(); n != 1 {
		t.Fatalf("%d PUTs after syncs that found the pools in another order, want still 1", n)
	}
	if _, order := s.poolCounts(t, id); strings.Join(order, ",") != "user,system" {
		t.Errorf("the pools were rewritten: %v", order)
	}

	// The second pool of the spec (first in Azure's order) scaled in the portal ...
	reversed[0].(map[string]any)["count"] = 5
	patch, _ = json.Marshal(map[string]any{"properties": map[string]any{"agentPoolProfiles": reversed}})
	_, err = s.Emu.PatchResource(ctx, id, patch)
	must(t, err)
	// ... is scaled back, with one corrective PUT, and the system pool kept.
	until(t, "user pool back to 2", func() bool { c, _ := s.poolCounts(t, id); return c["user"] == 2 })
	reads = s.Reads(id)
	until(t, "two syncs after the correction", func() bool { return s.Reads(id) >= reads+2 })
	if n := puts(); n != 2 {
		t.Errorf("%d PUTs after the drift, want exactly one corrective PUT (2 in all)", n)
	}
	if c, _ := s.poolCounts(t, id); c["system"] != 1 || c["user"] != 2 || len(c) != 2 {
		t.Errorf("pools after the correction: %v", c)
	}
	s.WaitReady(t, mc, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
}

// managedClusterKind is the registered ManagedCluster kind: the generated adapter with its
// overlay (managedcluster_overlay.go).
func managedClusterKind(t *testing.T) reconcilers.Kind {
	t.Helper()
	for _, k := range kinds.All() {
		if _, ok := k.New().(*containerservicev1alpha1.ManagedCluster); ok {
			return k
		}
	}
	t.Fatal("no ManagedCluster kind")
	return nil
}

// What the kind written by hand did survives its move onto the generator: a pool under the
// autoscaler sends no count, the others do; the status's flat strings are read from
// Azure's nested answer; the ConfigMap exports send the issuer URL and the principal; only
// the kubeconfigs asked for are fetched and decoded.
func TestManagedClusterBehaviourKept(t *testing.T) {
	t.Parallel()
	k := managedClusterKind(t)
	mc := managedCluster("ns", "aks", "rg", nil)
	mc.Spec.AgentPoolProfiles = append(mc.Spec.AgentPoolProfiles, containerservicev1alpha1.ManagedClusterAgentPoolProfile{
		Name: "user", Mode: "User", Count: ptr.To[int32](3), EnableAutoScaling: ptr.To(true), MinCount: ptr.To[int32](1), MaxCount: ptr.To[int32](5)})
	mc.Spec.Identity = &containerservicev1alpha1.ManagedClusterIdentity{Type: "UserAssigned",
		UserAssignedIdentities: []azurev1alpha1.UserAssignedIdentityNameDetails{{Reference: azurev1alpha1.UserAssignedIdentityNameReference{
			ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"}}}}
	body, err := k.Desired(mc, nil)
	if err != nil {
		t.Fatal(err)
	}
	pools := body["properties"].(map[string]any)["agentPoolProfiles"].([]any)
	if c := pools[0].(map[string]any)["count"]; c != float64(1) && c != 1 && c != json.Number("1") {
		t.Errorf("system pool count %v (%T), want 1", c, c)
	}
	if c, sent := pools[1].(map[string]any)["count"]; sent {
		t.Errorf("autoscaled pool sends count %v", c)
	}
	if ids := body["identity"].(map[string]any)["userAssignedIdentities"].(map[string]any); len(ids) != 1 {
		t.Errorf("identity sent as %v", body["identity"])
	}

	k.Observe(mc, map[string]any{
		"identity": map[string]any{"type": "SystemAssigned", "principalId": "p-1"},
		"properties": map[string]any{"fqdn": "aks.hcp.westeurope.azmk8s.io", "powerState": map[string]any{"code": "Stopped"},
			"oidcIssuerProfile": map[string]any{"enabled": true, "issuerURL": "https://oidc.example/issuer/"}},
	})
	st := mc.Status
	if st.FQDN != "aks.hcp.westeurope.azmk8s.io" || st.PowerState != "Stopped" || st.OIDCIssuerURL != "https://oidc.example/issuer/" || st.PrincipalID != "p-1" {
		t.Errorf("status %+v", st)
	}

	h := k.Hooks()
	mc.Spec.OperatorSpec = &containerservicev1alpha1.ManagedClusterOperatorSpec{
		ConfigMaps: &containerservicev1alpha1.ManagedClusterOperatorConfigMaps{
			OIDCIssuerProfile: &azurev1alpha1.ConfigMapDestination{Name: "aks", Key: "issuer"},
			PrincipalID:       &azurev1alpha1.ConfigMapDestination{Name: "aks", Key: "principal"}},
		Secrets: &containerservicev1alpha1.ManagedClusterOperatorSecrets{
			UserCredentials: &azurev1alpha1.SecretDestination{Name: "aks", Key: "kubeconfig"}},
	}
	if d := h.ConfigMapDestinations(mc); d["oidcIssuerProfile"] == nil || d["principalId"] == nil {
		t.Errorf("ConfigMap destinations %v", d)
	}
	if v := h.ConfigMapValues(mc); v["oidcIssuerProfile"] != "https://oidc.example/issuer/" || v["principalId"] != "p-1" {
		t.Errorf("ConfigMap values %v", v)
	}
	if d := h.SecretDestinations(mc); d["userCredentials"] == nil || d["adminCredentials"] != nil {
		t.Errorf("Secret destinations %v", d)
	}
	var called []string
	got, err := h.Secrets(t.Context(), func(_ context.Context, action string) (map[string]any, error) {
		called = append(called, action)
		return map[string]any{"kubeconfigs": []any{map[string]any{"name": "clusterUser", "value": base64.StdEncoding.EncodeToString([]byte("apiVersion: v1"))}}}, nil
	}, mc)
	if err != nil || got["userCredentials"] != "apiVersion: v1" || len(got) != 1 || strings.Join(called, ",") != "listClusterUserCredential" {
		t.Errorf("Secrets %v, %v after %v; want the user kubeconfig only", got, err, called)
	}
}
