package kinds

import (
	"context"
	"encoding/base64"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// ManagedCluster adapts Microsoft.ContainerService/managedClusters (AKS).
//
// Node counts are compared like any property, so a pool scaled in the portal
// is scaled back at the next sync; pools with enableAutoScaling do not send
// count (the autoscaler owns it between minCount and maxCount). Pools are
// paired with Azure's by name, not position: Azure may list them in another
// order than the spec. AKS keeps the pools a cluster PUT leaves out and refuses
// new ones there (they are added with the agent pools API, as
// ManagedClustersAgentPool objects do): the cluster compares only the pools it
// names (Facts.OpenSets).
type ManagedCluster struct{}

var _ reconcilers.Kind = ManagedCluster{}

func (ManagedCluster) New() azurev1alpha1.Resource { return &containerservicev1alpha1.ManagedCluster{} }
func (ManagedCluster) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.ContainerService/managedClusters",
		APIVersion:   "2024-09-01",
		OwnerKind:    resourcesv1alpha1.ResourceGroupGroupKind,
		// The pools of the cluster are an open set.
		OpenSets: []string{"properties.agentPoolProfiles"},
		Names: []reconcilers.NameRef{
			// AKS creates this resource group for the cluster's nodes, in the
			// cluster's subscription, and deletes it with the cluster
			// (api/kinds.yaml says so for the generator).
			{Path: "properties.nodeResourceGroup", Means: reconcilers.NameResourceGroup},
		},
	}
}
func (k ManagedCluster) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{
		Location: func(obj azurev1alpha1.Resource) string {
			return armLocation(obj.(*containerservicev1alpha1.ManagedCluster).Spec.Location)
		},
		Resolve:               k.resolve,
		SecretDestinations:    k.secretDestinations,
		Secrets:               k.secrets,
		ConfigMapDestinations: k.configMapDestinations,
		ConfigMapValues:       k.configMapValues,
	}
}

// resolve turns user-assigned identities named in this namespace into ARM IDs
// (key "identity/<name>").
func (ManagedCluster) resolve(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {
	mc := obj.(*containerservicev1alpha1.ManagedCluster)
	if mc.Spec.Identity == nil {
		return nil, nil
	}
	out := map[string]string{}
	for _, uai := range mc.Spec.Identity.UserAssignedIdentities {
		name := uai.Reference.Name
		if name == "" {
			continue
		}
		var id managedidentityv1alpha1.UserAssignedIdentity
		if err := c.Get(ctx, client.ObjectKey{Namespace: mc.Namespace, Name: name}, &id); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("identity: UserAssignedIdentity %q does not exist in this namespace", name)
			}
			return nil, fmt.Errorf("identity: UserAssignedIdentity %q: %w", name, err)
		}
		if id.Status.ID == "" {
			return nil, fmt.Errorf("identity: UserAssignedIdentity %q does not exist in Azure yet", name)
		}
		out["identity/"+name] = id.Status.ID
	}
	return out, nil
}

// Desired names user-assigned identities by the ARM IDs resolve found.
func (ManagedCluster) Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	sp := obj.(*containerservicev1alpha1.ManagedCluster).Spec
	body := map[string]any{"location": armLocation(sp.Location), "tags": putTags(sp.Tags)}
	if s := sp.Sku; s != nil {
		sku := map[string]any{}
		putStr(sku, "name", s.Name)
		putStr(sku, "tier", s.Tier)
		putObj(body, "sku", sku)
	}
	if id := sp.Identity; id != nil {
		ident := map[string]any{"type": id.Type}
		if len(id.UserAssignedIdentities) > 0 {
			uais := map[string]any{}
			for _, u := range id.UserAssignedIdentities {
				armID := u.Reference.ARMID
				if u.Reference.Name != "" {
					armID = resolved["identity/"+u.Reference.Name]
				}
				if armID == "" {
					return nil, fmt.Errorf("identity: user-assigned identity %q is not resolved", u.Reference.Name)
				}
				uais[armID] = map[string]any{}
			}
			ident["userAssignedIdentities"] = uais
		}
		body["identity"] = ident
	}
	props := map[string]any{}
	putStr(props, "kubernetesVersion", sp.KubernetesVersion)
	putStr(props, "dnsPrefix", sp.DNSPrefix)
	putStr(props, "nodeResourceGroup", sp.NodeResourceGroup)
	pools := []any{}
	for _, p := range sp.AgentPoolProfiles {
		pool := map[string]any{"name": p.Name}
		if p.EnableAutoScaling == nil || !*p.EnableAutoScaling {
			putInt(pool, "count", p.Count)
		}
		putStr(pool, "vmSize", p.VMSize)
		putStr(pool, "mode", p.Mode)
		putStr(pool, "osType", p.OSType)
		putBool(pool, "enableAutoScaling", p.EnableAutoScaling)
		putInt(pool, "minCount", p.MinCount)
		putInt(pool, "maxCount", p.MaxCount)
		if len(p.AvailabilityZones) > 0 {
			pool["availabilityZones"] = p.AvailabilityZones
		}
		pools = append(pools, pool)
	}
	props["agentPoolProfiles"] = pools
	if n := sp.NetworkProfile; n != nil {
		np := map[string]any{}
		putStr(np, "networkPlugin", n.NetworkPlugin)
		putStr(np, "networkPluginMode", n.NetworkPluginMode)
		putStr(np, "networkPolicy", n.NetworkPolicy)
		putStr(np, "podCidr", n.PodCIDR)
		putStr(np, "serviceCidr", n.ServiceCIDR)
		putStr(np, "dnsServiceIP", n.DNSServiceIP)
		putObj(props, "networkProfile", np)
	}
	if a := sp.APIServerAccessProfile; a != nil {
		ap := map[string]any{}
		if a.AuthorizedIPRanges != nil {
			ranges := []any{}
			for _, r := range a.AuthorizedIPRanges {
				ranges = append(ranges, string(r))
			}
			ap["authorizedIPRanges"] = ranges
		}
		putBool(ap, "enablePrivateCluster", a.EnablePrivateCluster)
		putObj(props, "apiServerAccessProfile", ap)
	}
	if o := sp.OIDCIssuerProfile; o != nil && o.Enabled != nil {
		props["oidcIssuerProfile"] = map[string]any{"enabled": *o.Enabled}
	}
	if s := sp.SecurityProfile; s != nil && s.WorkloadIdentity != nil && s.WorkloadIdentity.Enabled != nil {
		props["securityProfile"] = map[string]any{"workloadIdentity": map[string]any{"enabled": *s.WorkloadIdentity.Enabled}}
	}
	body["properties"] = props
	return body, nil
}

func (ManagedCluster) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	mc := obj.(*containerservicev1alpha1.ManagedCluster)
	p := propsOf(actual)
	st := &mc.Status
	st.FQDN = strOf(p, "fqdn")
	st.PrivateFQDN = strOf(p, "privateFQDN")
	st.NodeResourceGroup = strOf(p, "nodeResourceGroup")
	st.CurrentKubernetesVersion = strOf(p, "currentKubernetesVersion")
	ps, _ := p["powerState"].(map[string]any)
	st.PowerState = strOf(ps, "code")
	oidc, _ := p["oidcIssuerProfile"].(map[string]any)
	st.OIDCIssuerURL = strOf(oidc, "issuerURL")
	id, _ := actual["identity"].(map[string]any)
	st.PrincipalID = strOf(id, "principalId")
}

func (ManagedCluster) secretDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination {
	os := obj.(*containerservicev1alpha1.ManagedCluster).Spec.OperatorSpec
	if os == nil || os.Secrets == nil {
		return nil
	}
	return map[string]*azurev1alpha1.SecretDestination{
		"adminCredentials": os.Secrets.AdminCredentials, "userCredentials": os.Secrets.UserCredentials,
	}
}

// secrets fetches only the kubeconfigs the user asked for: an admin
// credential is not even read unless it is exported.
func (k ManagedCluster) secrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
	out := map[string]string{}
	for name, action := range map[string]string{"adminCredentials": "listClusterAdminCredential", "userCredentials": "listClusterUserCredential"} {
		if k.secretDestinations(obj)[name] == nil {
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

func (ManagedCluster) configMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {
	os := obj.(*containerservicev1alpha1.ManagedCluster).Spec.OperatorSpec
	if os == nil || os.ConfigMaps == nil {
		return nil
	}
	return map[string]*azurev1alpha1.ConfigMapDestination{
		"oidcIssuerProfile": os.ConfigMaps.OIDCIssuerProfile, "principalId": os.ConfigMaps.PrincipalID,
	}
}

func (ManagedCluster) configMapValues(obj azurev1alpha1.Resource) map[string]string {
	st := obj.(*containerservicev1alpha1.ManagedCluster).Status
	return map[string]string{"oidcIssuerProfile": st.OIDCIssuerURL, "principalId": st.PrincipalID}
}
