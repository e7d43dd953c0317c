package kinds

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// A storage account's secret outputs, which its model cannot say: the account keys are not
// in its body. Storage Accounts - List Keys (POST .../listKeys,
// learn.microsoft.com/rest/api/storagerp/storage-accounts/list-keys) answers
// {keys: [{keyName: key1, value, permissions}, {keyName: key2, ...}]}. The Secrets get
// key1 and key2 and the status's endpoints (api/kinds.yaml, exports.secrets);
// secretExpressions also read connectionString1 and connectionString2, made of each key as
// Azure's portal shows them (learn.microsoft.com/azure/storage/common/storage-configure-connection-string).
//
// A firewall (networkAcls) is sent with its IP rules even when the spec has none, as the
// hand-written adapter sent it: the reconciler compares what the body holds, so without
// the list a rule added in the portal would go unseen; with an empty one it is drift, and
// the next sync's PUT replaces the account's rules (Storage Accounts - Create updates an
// existing account's properties with those given, ipRules a whole list:
// learn.microsoft.com/rest/api/storagerp/storage-accounts/create).
var _ = overlay(storagev1alpha1.StorageAccountGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.Secrets = storageAccountSecrets },
	Body:  storageAccountIPRules,
})

// storageAccountIPRules sends properties.networkAcls.ipRules, empty when the spec has none.
func storageAccountIPRules(_ azurev1alpha1.Resource, body map[string]any) {
	props, _ := body["properties"].(map[string]any)
	acls, _ := props["networkAcls"].(map[string]any)
	if acls != nil && acls["ipRules"] == nil {
		acls["ipRules"] = []any{}
	}
}

// storageAccountSecrets lists the keys and builds the connection strings from them and
// the blob endpoint's suffix.
func storageAccountSecrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
	sa := obj.(*storagev1alpha1.StorageAccount)
	out := map[string]string{}
	if ep := sa.Status.PrimaryEndpoints; ep != nil {
		for name, v := range map[string]string{"blob": ep.Blob, "dfs": ep.Dfs, "file": ep.File, "queue": ep.Queue, "table": ep.Table, "web": ep.Web} {
			out[name+"Endpoint"] = v
		}
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

// endpointSuffix is core.windows.net in https://acct.blob.core.windows.net/: the suffix of
// the cloud the account is in, which a connection string names.
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
