package emulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// managedClusterBehaviour: agent pools with counts (type_agentpool.go: the cluster's list
// and its agentPools children are one set), an API server FQDN and the node resource group
// name; credentials are served as a kubeconfig pointing at that FQDN.
func managedClusterBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.ContainerService/managedClusters",
		lro:      LROConfig{Write: LROAsyncOperation, Delete: LROAsyncOperation},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			pools, _ := w.props["agentPoolProfiles"].([]any)
			if len(pools) == 0 {
				return badRequest("InvalidParameter", "The value of parameter agentPoolProfiles is invalid. At least one agent pool is required.")
			}
			version := str(w.props, "kubernetesVersion")
			if version == "" {
				version = "1.33.2"
				w.props["kubernetesVersion"] = version
			}
			for i, p := range pools {
				pool, ok := p.(map[string]any)
				if !ok || str(pool, "name") == "" {
					return badRequest("InvalidParameter", "The value of parameter agentPoolProfiles[%d].name is invalid.", i)
				}
				if _, set := pool["count"]; !set {
					pool["count"] = json.Number("1") // ARM's default
				}
				count, ok := intValue(pool, "count")
				if !ok || count < 0 || count > 1000 {
					return badRequest("InvalidParameter", "The value of parameter agentPoolProfiles[%d].count is invalid: it must be between 0 and 1000.", i)
				}
				if i == 0 && count == 0 {
					return badRequest("InvalidParameter", "The system agent pool '%s' must have at least one node.", str(pool, "name"))
				}
				for k, v := range map[string]any{"mode": "System", "orchestratorVersion": version, "provisioningState": "Succeeded", "powerState": map[string]any{"code": "Running"}} {
					if _, ok := pool[k]; !ok {
						pool[k] = v
					}
				}
			}
			if err := clusterPools(w, pools); err != nil {
				return err
			}
			prefix := str(w.props, "dnsPrefix")
			if prefix == "" {
				prefix = w.target.name + "-dns"
				w.props["dnsPrefix"] = prefix
			}
			sum := sha256.Sum256([]byte(w.target.id))
			w.keep("fqdn", func() any { return fmt.Sprintf("%s-%x.hcp.%s.azmk8s.io", prefix, sum[:4], w.location()) })
			rg := ""
			if ap := armpath.Parse(w.target.id); ap.ResourceGroup() != "" {
				rg = ap.ResourceGroup()
			}
			// AKS creates the node resource group, in the cluster's subscription: the one
			// nodeResourceGroup names, which must be a new group, else
			// MC_<group>_<cluster>_<location>; the name cannot change afterwards (AKS FAQ,
			// "Can I provide my own name for the AKS node resource group?",
			// https://learn.microsoft.com/azure/aks/faq). The GET answers it, and AKS
			// deletes the group with the cluster.
			if err := w.checkManagedGroup("nodeResourceGroup", w.subscriptionID, func() string {
				return fmt.Sprintf("MC_%s_%s_%s", rg, w.target.name, w.location())
			}, true); err != nil {
				return err
			}
			// A cluster with a managed identity, not a service principal,
			// reports the placeholder client ID "msi", as AKS does (az aks
			// show reads this object and fails without it).
			if _, ok := w.props["servicePrincipalProfile"]; !ok {
				w.props["servicePrincipalProfile"] = map[string]any{"clientId": "msi"}
			}
			w.props["currentKubernetesVersion"] = version
			w.props["powerState"] = map[string]any{"code": "Running"}
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			if r.secrets == nil {
				// Credentials stay the same until rotated, as in AKS.
				r.secrets = map[string]string{"clusterUser": randomKey(24), "clusterAdmin": randomKey(24)}
			}
			storeClusterPools(e, r)
			e.ensureManagedGroupLocked(nodeResourceGroup(r), str(r.body, "location"), r.id)
		},
		removed: func(e *Emulator, r *resource) { e.removeManagedGroupLocked(nodeResourceGroup(r), r.id) },
		actions: map[string]actionFunc{
			"listclusterusercredential":  kubeconfigAction("clusterUser"),
			"listclusteradmincredential": kubeconfigAction("clusterAdmin"),
		},
	}
}

func kubeconfigAction(user string) actionFunc {
	return func(e *Emulator, r *resource, _ map[string]any) (int, any, *apiError) {
		fqdn := str(r.props(), "fqdn")
		name := str(r.body, "name")
		kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: %s\n  cluster:\n    server: https://%s:443\ncontexts:\n- name: %s\n  context:\n    cluster: %s\n    user: %s_%s\ncurrent-context: %s\nusers:\n- name: %s_%s\n  user:\n    token: %s\n",
			name, fqdn, name, name, user, name, name, user, name, r.secrets[user])
		return http.StatusOK, map[string]any{"kubeconfigs": []map[string]any{{"name": user, "value": base64.StdEncoding.EncodeToString([]byte(kc))}}}, nil
	}
}

// nodeResourceGroup is the node resource group of a stored cluster.
func nodeResourceGroup(r *resource) managedGroup {
	return managedGroup{subscriptionOfID(r.id), str(r.props(), "nodeResourceGroup")}
}
