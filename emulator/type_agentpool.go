package emulator

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// AKS agent pools as the service keeps them: a cluster's properties.agentPoolProfiles and
// its agentPools children are two views of one set. A pool written at its own URL (az aks
// nodepool add, a ManagedClustersAgentPool) is listed by the cluster; a pool of the
// cluster's PUT is readable at its own URL. A cluster PUT updates the pools it names,
// keeps those it leaves out, and refuses a pool the cluster does not have yet (the error
// below, as AKS answers it: pulumi/pulumi-azure-native#579 and #2719, Azure/AKS#2495).
//
// Not modelled: AKS refusing to delete a cluster's last System pool.

const agentPoolType = "Microsoft.ContainerService/managedClusters/agentPools"

// msgNewAgentPool is AKS's answer to a cluster PUT that introduces a pool.
const msgNewAgentPool = "A new agent pool was introduced. Adding agent pools to an existing cluster is not allowed through managed cluster operations. For agent pool specific change, please use per agent pool operations: https://aka.ms/agent-pool-rest-api"

// clusterPools checks a cluster PUT's pools against the stored cluster's: it may not
// introduce one. Those it leaves out, which AKS keeps, are listed again once the cluster
// is stored (storeClusterPools), as they stand: Azure's answer to this PUT (its defaults,
// its rewrites) is an answer about the pools it names, not about those it left alone.
func clusterPools(w *writeRequest, pools []any) *apiError {
	if w.existing == nil {
		return nil
	}
	existing, _ := w.existing.props()["agentPoolProfiles"].([]any)
	have := poolIndex(existing)
	for name := range poolIndex(pools) {
		if _, ok := have[name]; !ok {
			return badRequest("BadRequest", "%s", msgNewAgentPool)
		}
	}
	return nil
}

// poolIndex is a list of pools by lower-cased name.
func poolIndex(pools []any) map[string]map[string]any {
	out := make(map[string]map[string]any, len(pools))
	for _, p := range pools {
		if m, ok := p.(map[string]any); ok {
			out[strings.ToLower(str(m, "name"))] = m
		}
	}
	return out
}

// storeClusterPools makes each pool of a stored cluster's list readable at its own URL,
// and lists after them the cluster's pools the list left out (a PUT's), as they stand, in
// name order (an order of the emulator's: AKS documents none, and the operator pairs a
// cluster's pools by name). A pool whose entry is the pool as it stands is not written again: only the pools
// the cluster's write changed change. Source: the rule above (one set, a left-out pool
// kept, the issues cited there); no Azure document speaks of a pool Azure changes later,
// so that case follows the same rule (settleAnswers calls stored), not an answer of its own.
func storeClusterPools(e *Emulator, cluster *resource) {
	pools, _ := cluster.props()["agentPoolProfiles"].([]any)
	named := map[string]bool{}
	for _, p := range pools {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		name := str(m, "name")
		named[strings.ToLower(name)] = true
		id := cluster.id + "/agentPools/" + name
		props := cloneBody(m)
		delete(props, "name")
		body := map[string]any{"id": id, "name": name, "type": cluster.typ + "/agentPools", "properties": props}
		if child := e.lookupLocked(id); child != nil {
			if reflect.DeepEqual(child.props(), props) {
				continue
			}
			child.body = body
			child.refresh()
			continue
		}
		child := &resource{id: id, key: strings.ToLower(id), typ: cluster.typ + "/agentPools", parentKey: cluster.key, body: body}
		child.refresh()
		e.insertLocked(child)
	}
	var kept []any
	for _, c := range cluster.children {
		name := str(c.body, "name")
		if !strings.EqualFold(c.typ, cluster.typ+"/agentPools") || named[strings.ToLower(name)] {
			continue
		}
		entry := cloneBody(c.props())
		entry["name"] = name
		kept = append(kept, entry)
	}
	if len(kept) == 0 {
		return
	}
	slices.SortFunc(kept, func(a, b any) int {
		return strings.Compare(strings.ToLower(str(a.(map[string]any), "name")), strings.ToLower(str(b.(map[string]any), "name")))
	})
	cluster.props()["agentPoolProfiles"] = append(slices.Clone(pools), kept...)
	cluster.refresh()
}

// agentPoolBehaviour serves a pool at its own URL, with AKS's defaults, and keeps the
// cluster's list in step.
func agentPoolBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: agentPoolType, // its long-running shape is the generated one
		prepare: func(w *writeRequest) *apiError {
			if _, set := w.props["count"]; !set {
				w.props["count"] = json.Number("1")
			}
			if count, ok := intValue(w.props, "count"); !ok || count < 0 || count > 1000 {
				return badRequest("InvalidParameter", "The value of parameter agentPoolProfile.count is invalid: it must be between 0 and 1000.")
			}
			version := ""
			if w.target.parent != nil {
				version = str(w.target.parent.props(), "currentKubernetesVersion")
			}
			for k, v := range map[string]any{"mode": "User", "orchestratorVersion": version, "powerState": map[string]any{"code": "Running"}} {
				if _, ok := w.props[k]; !ok {
					w.props[k] = v
				}
			}
			return nil
		},
		stored:  func(e *Emulator, r *resource) { listPool(e, r, false) },
		removed: func(e *Emulator, r *resource) { listPool(e, r, true) },
	}
}

// listPool puts a pool written at its own URL into its cluster's list (in its place, or
// last when new), or takes it out.
func listPool(e *Emulator, pool *resource, gone bool) {
	cluster := e.resources[pool.parentKey]
	if cluster == nil {
		return
	}
	name := str(pool.body, "name")
	pools, _ := cluster.props()["agentPoolProfiles"].([]any)
	pools = slices.Clone(pools)
	i := slices.IndexFunc(pools, func(p any) bool {
		m, _ := p.(map[string]any)
		return strings.EqualFold(str(m, "name"), name)
	})
	entry := cloneBody(pool.props())
	entry["name"] = name
	switch {
	case gone && i >= 0:
		pools = slices.Delete(pools, i, i+1)
	case !gone && i >= 0:
		pools[i] = entry
	case !gone:
		pools = append(pools, entry)
	}
	cluster.props()["agentPoolProfiles"] = pools
	cluster.refresh()
}
