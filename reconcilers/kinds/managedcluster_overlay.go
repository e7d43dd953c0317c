package kinds

import (
	"context"
	"encoding/base64"
	"fmt"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// An AKS cluster's node counts under the autoscaler and its kubeconfigs, which its model
// cannot say.
//
// A pool with enableAutoScaling has its node count set by the cluster autoscaler between
// minCount and maxCount (learn.microsoft.com/azure/aks/cluster-autoscaler): its count is
// not sent, or every sync would scale the pool back to the spec's. Other pools' counts are
// compared like any property, so a pool scaled in the portal is scaled back at the next
// sync. (The pools are an open set paired by name, api/kinds.yaml: AKS keeps the pools a
// cluster PUT leaves out, which ManagedClustersAgentPool objects manage.)
//
// The kubeconfigs are not in the cluster's body: Managed Clusters - List Cluster Admin
// Credentials and List Cluster User Credentials (POST .../listClusterAdminCredential,
// .../listClusterUserCredential, learn.microsoft.com/rest/api/aks/managed-clusters) answer
// {kubeconfigs: [{name, value}]}, the value base64. Only the kubeconfigs
// spec.operatorSpec.secrets exports are read: an admin credential is not even fetched
// unless it is asked for (api/kinds.yaml, exports.secrets).
var _ = overlay(containerservicev1alpha1.ManagedClusterGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.Secrets = managedClusterSecrets },
	Body:  managedClusterAutoscaledCounts,
})

// managedClusterAutoscaledCounts leaves the count out of the pools the autoscaler owns.
func managedClusterAutoscaledCounts(_ azurev1alpha1.Resource, body map[string]any) {
	props, _ := body["properties"].(map[string]any)
	pools, _ := props["agentPoolProfiles"].([]any)
	for _, p := range pools {
		if pool, _ := p.(map[string]any); pool != nil && pool["enableAutoScaling"] == true {
			delete(pool, "count")
		}
	}
}

// managedClusterCredentials are the kubeconfig exports and the actions that list them.
var managedClusterCredentials = map[string]string{
	"adminCredentials": "listClusterAdminCredential",
	"userCredentials":  "listClusterUserCredential",
}

// managedClusterSecrets fetches only the kubeconfigs spec.operatorSpec.secrets exports.
func managedClusterSecrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
	os := obj.(*containerservicev1alpha1.ManagedCluster).Spec.OperatorSpec
	if os == nil || os.Secrets == nil {
		return map[string]string{}, nil
	}
	wanted := map[string]bool{"adminCredentials": os.Secrets.AdminCredentials != nil, "userCredentials": os.Secrets.UserCredentials != nil}
	out := map[string]string{}
	for name, action := range managedClusterCredentials {
		if !wanted[name] {
			continue
		}
		resp, err := call(ctx, action)
		if err != nil {
			return nil, err
		}
		kc, err := firstKubeconfig(resp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", action, err)
		}
		out[name] = kc
	}
	return out, nil
}

// firstKubeconfig decodes kubeconfigs[0].value.
func firstKubeconfig(resp map[string]any) (string, error) {
	list, _ := resp["kubeconfigs"].([]any)
	if len(list) == 0 {
		return "", fmt.Errorf("no kubeconfig returned")
	}
	first, _ := list[0].(map[string]any)
	raw, err := base64.StdEncoding.DecodeString(strOf(first, "value"))
	if err != nil {
		return "", fmt.Errorf("kubeconfig is not base64: %w", err)
	}
	return string(raw), nil
}
