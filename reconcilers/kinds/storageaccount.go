package kinds

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// StorageAccount adapts Microsoft.Storage/storageAccounts. Its keys (listKeys)
// and endpoints are exported to Secrets, its endpoints to ConfigMaps.
type StorageAccount struct{}

var _ reconcilers.Kind = StorageAccount{}

func (StorageAccount) New() azurev1alpha1.Resource { return &storagev1alpha1.StorageAccount{} }
func (StorageAccount) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.Storage/storageAccounts",
		APIVersion:   "2023-05-01",
		OwnerKind:    resourcesv1alpha1.ResourceGroupGroupKind,
	}
}
func (k StorageAccount) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{
		Location: func(obj azurev1alpha1.Resource) string {
			return armLocation(obj.(*storagev1alpha1.StorageAccount).Spec.Location)
		},
		SecretDestinations:    k.secretDestinations,
		Secrets:               k.secrets,
		ConfigMapDestinations: k.configMapDestinations,
		ConfigMapValues:       k.configMapValues,
	}
}

func (StorageAccount) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	sp := obj.(*storagev1alpha1.StorageAccount).Spec
	props := map[string]any{}
	putStr(props, "accessTier", sp.AccessTier)
	putBool(props, "allowBlobPublicAccess", sp.AllowBlobPublicAccess)
	putBool(props, "allowSharedKeyAccess", sp.AllowSharedKeyAccess)
	putStr(props, "minimumTlsVersion", sp.MinimumTLSVersion)
	putStr(props, "publicNetworkAccess", sp.PublicNetworkAccess)
	putBool(props, "supportsHttpsTrafficOnly", sp.SupportsHTTPSTrafficOnly)
	putBool(props, "isHnsEnabled", sp.IsHNSEnabled)
	if acl := sp.NetworkAcls; acl != nil {
		n := map[string]any{"defaultAction": acl.DefaultAction}
		putStr(n, "bypass", acl.Bypass)
		// Always sent, so a rule added in the portal is drift.
		rules := []any{}
		for _, r := range acl.IPRules {
			rule := map[string]any{"value": r.Value}
			putStr(rule, "action", r.Action)
			rules = append(rules, rule)
		}
		n["ipRules"] = rules
		props["networkAcls"] = n
	}
	body := map[string]any{
		"location": armLocation(sp.Location),
		"tags":     putTags(sp.Tags),
		"kind":     sp.Kind,
		"sku":      map[string]any{"name": sp.Sku.Name},
	}
	putObj(body, "properties", props)
	return body, nil
}

func (StorageAccount) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	sa := obj.(*storagev1alpha1.StorageAccount)
	p := propsOf(actual)
	sa.Status.PrimaryLocation = strOf(p, "primaryLocation")
	sa.Status.StatusOfPrimary = strOf(p, "statusOfPrimary")
	sa.Status.PrimaryEndpoints = nil
	if ep, ok := p["primaryEndpoints"].(map[string]any); ok {
		sa.Status.PrimaryEndpoints = &storagev1alpha1.Endpoints{
			Blob: strOf(ep, "blob"), Dfs: strOf(ep, "dfs"), File: strOf(ep, "file"),
			Queue: strOf(ep, "queue"), Table: strOf(ep, "table"), Web: strOf(ep, "web"),
		}
	}
}

func (StorageAccount) secretDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination {
	os := obj.(*storagev1alpha1.StorageAccount).Spec.OperatorSpec
	if os == nil || os.Secrets == nil {
		return nil
	}
	s := os.Secrets
	return map[string]*azurev1alpha1.SecretDestination{
		"key1": s.Key1, "key2": s.Key2, "blobEndpoint": s.BlobEndpoint, "dfsEndpoint": s.DfsEndpoint,
		"fileEndpoint": s.FileEndpoint, "queueEndpoint": s.QueueEndpoint, "tableEndpoint": s.TableEndpoint, "webEndpoint": s.WebEndpoint,
	}
}

// secrets lists the keys, and builds connection strings from them (for CEL
// exports: connectionString1, connectionString2) and the endpoints.
func (StorageAccount) secrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
	sa := obj.(*storagev1alpha1.StorageAccount)
	out := map[string]string{}
	for k, v := range storageEndpoints(sa) {
		out[k+"Endpoint"] = v
	}
	resp, err := call(ctx, "listKeys")
	if err != nil {
		return nil, err
	}
	keys, _ := resp["keys"].([]any)
	for _, k := range keys {
		m, _ := k.(map[string]any)
		name, value := strOf(m, "keyName"), strOf(m, "value")
		if name != "key1" && name != "key2" {
			continue
		}
		out[name] = value
		if suffix := endpointSuffix(out["blobEndpoint"]); suffix != "" {
			out["connectionString"+strings.TrimPrefix(name, "key")] = fmt.Sprintf(
				"DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=%s", sa.AzureName(), value, suffix)
		}
	}
	if out["key1"] == "" || out["key2"] == "" {
		return nil, fmt.Errorf("listKeys returned no key1 and key2")
	}
	return out, nil
}

// endpointSuffix is core.windows.net in https://acct.blob.core.windows.net/.
func endpointSuffix(blob string) string {
	u, err := url.Parse(blob)
	if err != nil || u.Host == "" {
		return ""
	}
	parts := strings.SplitN(u.Hostname(), ".", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

func (StorageAccount) configMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {
	os := obj.(*storagev1alpha1.StorageAccount).Spec.OperatorSpec
	if os == nil || os.ConfigMaps == nil {
		return nil
	}
	c := os.ConfigMaps
	return map[string]*azurev1alpha1.ConfigMapDestination{
		"blob": c.BlobEndpoint, "dfs": c.DfsEndpoint, "file": c.FileEndpoint,
		"queue": c.QueueEndpoint, "table": c.TableEndpoint, "web": c.WebEndpoint,
	}
}

func (StorageAccount) configMapValues(obj azurev1alpha1.Resource) map[string]string {
	return storageEndpoints(obj.(*storagev1alpha1.StorageAccount))
}

func storageEndpoints(sa *storagev1alpha1.StorageAccount) map[string]string {
	ep := sa.Status.PrimaryEndpoints
	if ep == nil {
		return map[string]string{}
	}
	return map[string]string{"blob": ep.Blob, "dfs": ep.Dfs, "file": ep.File, "queue": ep.Queue, "table": ep.Table, "web": ep.Web}
}
