package emulator_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
)

func TestStorageAccountKeysAndContainers(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "data")
	res := f.resources(t, cred)
	const api = "2023-05-01"
	account := rgScope + "data/providers/Microsoft.Storage/storageAccounts/teamadata"
	got, err := put(t, res, account, api, armresources.GenericResource{Location: to.Ptr("westeurope"), Kind: to.Ptr("StorageV2"),
		SKU: &armresources.SKU{Name: to.Ptr("Standard_LRS")}})
	if err != nil {
		t.Fatal(err)
	}
	p := props(got)
	eps, _ := p["primaryEndpoints"].(map[string]any)
	if eps["blob"] != "https://teamadata.blob.core.windows.net/" || p["provisioningState"] != "Succeeded" {
		t.Errorf("endpoints %v state %v", eps, p["provisioningState"])
	}
	if p["minimumTlsVersion"] != "TLS1_2" {
		t.Errorf("ARM defaults not merged in: %v", p)
	}
	container := account + "/blobServices/default/containers/uploads"
	if _, err := put(t, res, container, api, armresources.GenericResource{Properties: map[string]any{"publicAccess": "None"}}); err != nil {
		t.Fatalf("container: %v", err)
	}
	if _, err := res.GetByID(ctxT(t), container, api, nil); err != nil {
		t.Fatal(err)
	}

	keys, err := f.post(t, cred, account, "listKeys", api, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := keyValue(keys, "key1")
	if first == "" || keyValue(keys, "key2") == "" {
		t.Fatalf("keys %v", keys)
	}
	regenerated, err := f.post(t, cred, account, "regenerateKey", api, map[string]string{"keyName": "key1"})
	if err != nil {
		t.Fatal(err)
	}
	if keyValue(regenerated, "key1") == first {
		t.Error("key1 unchanged after regenerateKey")
	}
	// Names are global, like in Azure.
	f.createGroup(t, cred, "other")
	_, err = put(t, res, rgScope+"other/providers/Microsoft.Storage/storageAccounts/teamadata", api, armresources.GenericResource{Location: to.Ptr("westeurope")})
	if err == nil {
		t.Fatal("a second account with the same name was created")
	}
	if _, code := responseError(t, err); code != "StorageAccountAlreadyTaken" {
		t.Errorf("code %s", code)
	}
	// Deleting the account removes its containers.
	if err := del(t, res, account, api); err != nil {
		t.Fatal(err)
	}
	_, err = res.GetByID(ctxT(t), container, api, nil)
	if _, code := responseError(t, err); code != "ParentResourceNotFound" {
		t.Errorf("container after account delete: %s", code)
	}
}

func keyValue(keys map[string]any, name string) string {
	list, _ := keys["keys"].([]any)
	for _, k := range list {
		m, _ := k.(map[string]any)
		if m["keyName"] == name {
			s, _ := m["value"].(string)
			return s
		}
	}
	return ""
}

func TestTypeBehaviours(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "apps")
	res := f.resources(t, cred)
	base := rgScope + "apps/providers/"
	tests := []struct {
		name, id, api string
		body          armresources.GenericResource
		want          map[string]any // expected properties
		absent        []string       // properties that must not be returned
		wantCode      string
	}{
		{name: "redis", id: base + "Microsoft.Cache/redis/cache1", api: "2024-03-01",
			body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}},
			want: map[string]any{"hostName": "cache1.redis.cache.windows.net", "port": float64(6379), "sslPort": float64(6380)}},
		{name: "postgres server", id: base + "Microsoft.DBforPostgreSQL/flexibleServers/pg1", api: "2024-08-01",
			body:   armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"administratorLogin": "admin", "administratorLoginPassword": "s3cret!"}},
			want:   map[string]any{"fullyQualifiedDomainName": "pg1.postgres.database.azure.com", "state": "Ready", "administratorLogin": "admin"},
			absent: []string{"administratorLoginPassword"}},
		{name: "postgres database", id: base + "Microsoft.DBforPostgreSQL/flexibleServers/pg1/databases/app", api: "2024-08-01",
			want: map[string]any{"charset": "UTF8"}},
		{name: "postgres firewall rule", id: base + "Microsoft.DBforPostgreSQL/flexibleServers/pg1/firewallRules/office", api: "2024-08-01",
			body: armresources.GenericResource{Properties: map[string]any{"startIpAddress": "10.0.0.1", "endIpAddress": "10.0.0.9"}},
			want: map[string]any{"startIpAddress": "10.0.0.1"}},
		{name: "postgres firewall rule backwards", id: base + "Microsoft.DBforPostgreSQL/flexibleServers/pg1/firewallRules/bad", api: "2024-08-01",
			body:     armresources.GenericResource{Properties: map[string]any{"startIpAddress": "10.0.0.9", "endIpAddress": "10.0.0.1"}},
			wantCode: "FirewallRuleStartIpAddressGreaterThanEnd"},
		{name: "aks", id: base + "Microsoft.ContainerService/managedClusters/aks1", api: "2024-09-01",
			body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{
				"dnsPrefix": "aks1", "agentPoolProfiles": []any{map[string]any{"name": "system", "count": 3, "vmSize": "Standard_D2s_v5"}}}},
			want: map[string]any{"nodeResourceGroup": "MC_apps_aks1_westeurope", "kubernetesVersion": "1.33.2"}},
		{name: "aks without nodes", id: base + "Microsoft.ContainerService/managedClusters/aks2", api: "2024-09-01",
			body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{
				"agentPoolProfiles": []any{map[string]any{"name": "system", "count": 0}}}},
			wantCode: "InvalidParameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := put(t, res, tt.id, tt.api, tt.body)
			if tt.wantCode != "" {
				if err == nil {
					t.Fatal("accepted")
				}
				if _, code := responseError(t, err); code != tt.wantCode {
					t.Errorf("code %s, want %s", code, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := props(got)
			if p["provisioningState"] != "Succeeded" {
				t.Errorf("provisioningState %v", p["provisioningState"])
			}
			for k, v := range tt.want {
				if p[k] != v {
					t.Errorf("%s = %v, want %v", k, p[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := p[k]; ok {
					t.Errorf("%s returned", k)
				}
			}
		})
	}
	// Redis answers as the service does: its type spelled Microsoft.Cache/Redis
	// (in the id too) and its location by display name; AKS by ARM name.
	redis, err := res.GetByID(ctxT(t), base+"Microsoft.Cache/redis/cache1", "2024-03-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := redis.GenericResource; *g.Type != "Microsoft.Cache/Redis" || !strings.Contains(*g.ID, "/providers/Microsoft.Cache/Redis/cache1") || *g.Location != "West Europe" {
		t.Errorf("redis answered type %q, id %q, location %q; want Microsoft.Cache/Redis and West Europe", *g.Type, *g.ID, *g.Location)
	}
	aks, err := res.GetByID(ctxT(t), base+"Microsoft.ContainerService/managedClusters/aks1", "2024-09-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := *aks.GenericResource.Location; l != "westeurope" {
		t.Errorf("aks answered location %q, want westeurope", l)
	}
	fqdn, _ := props(aks.GenericResource)["fqdn"].(string)
	if !strings.HasPrefix(fqdn, "aks1-") || !strings.HasSuffix(fqdn, ".hcp.westeurope.azmk8s.io") {
		t.Errorf("fqdn %q", fqdn)
	}
	keys, err := f.post(t, cred, base+"Microsoft.Cache/redis/cache1", "listKeys", "2024-03-01", nil)
	if err != nil || keys["primaryKey"] == "" {
		t.Errorf("redis keys %v: %v", keys, err)
	}
}

// A pool without count gets ARM's default of one node, and a cluster's
// credentials stay the same from one call to the next until rotated.
func TestManagedClusterDefaultCountAndStableCredentials(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "k8s")
	res := f.resources(t, cred)
	id := rgScope + "k8s/providers/Microsoft.ContainerService/managedClusters/aks"
	got, err := put(t, res, id, "2024-09-01", armresources.GenericResource{Location: to.Ptr("westeurope"),
		Properties: map[string]any{"agentPoolProfiles": []any{map[string]any{"name": "system"}}}})
	if err != nil {
		t.Fatal(err)
	}
	pools, _ := props(got)["agentPoolProfiles"].([]any)
	if len(pools) != 1 || pools[0].(map[string]any)["count"] != float64(1) {
		t.Errorf("agentPoolProfiles %v, want one pool with count 1", pools)
	}
	var kubeconfigs []string
	for range 2 {
		out, err := f.post(t, cred, id, "listClusterAdminCredential", "2024-09-01", nil)
		if err != nil {
			t.Fatal(err)
		}
		kubeconfigs = append(kubeconfigs, out["kubeconfigs"].([]any)[0].(map[string]any)["value"].(string))
	}
	if kubeconfigs[0] != kubeconfigs[1] {
		t.Error("the admin kubeconfig changed between two calls")
	}
}
