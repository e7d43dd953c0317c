package emulator_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/aztenant/aztenant/emulator"
)

// GET through the SDK's ARM pipeline (bearer token, retries) and decode.
func armGet(t *testing.T, f *fixture, cred azcore.TokenCredential, path, apiVersion string, out any) int {
	t.Helper()
	cl, err := arm.NewClient("emulator-test", "v1.0.0", cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(ctxT(t), http.MethodGet, runtime.JoinPaths(f.emu.URL(), path))
	if err != nil {
		t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	resp, err := cl.Pipeline().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// What `az account tenant list`, `az account list` and `az account
// list-locations` read: the caller's tenant, complete subscription objects,
// and the public cloud's regions for a principal with a role in the
// subscription (403 for one with none).
func TestTenantsSubscriptionsAndLocations(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) {
		c.Seed.Principals = append(c.Seed.Principals, emulator.Principal{ClientID: "77777777-0000-4000-8000-000000000007", TenantID: tenantID, ClientSecret: "s"})
	})
	cred := f.platformCred(t)

	var tenants struct {
		Value []struct{ TenantID, DisplayName, TenantCategory string }
	}
	if code := armGet(t, f, cred, "/tenants", "2022-12-01", &tenants); code != 200 || len(tenants.Value) != 1 ||
		tenants.Value[0].TenantID != tenantID || tenants.Value[0].DisplayName != "Contoso" || tenants.Value[0].TenantCategory != "Home" {
		t.Errorf("/tenants: %d %+v", code, tenants)
	}

	var subs struct {
		Value []struct {
			SubscriptionID, State string
			ManagedByTenants      []any          `json:"managedByTenants"`
			Policies              map[string]any `json:"subscriptionPolicies"`
		}
	}
	if code := armGet(t, f, cred, "/subscriptions", "2022-12-01", &subs); code != 200 || len(subs.Value) != 1 ||
		subs.Value[0].ManagedByTenants == nil || subs.Value[0].Policies["quotaId"] == nil || subs.Value[0].State != "Enabled" {
		t.Errorf("/subscriptions: %d %+v", code, subs)
	}

	var locs struct {
		Value []struct{ Name, DisplayName, Type string }
	}
	if code := armGet(t, f, cred, "/subscriptions/"+subscriptionID+"/locations", "2022-12-01", &locs); code != 200 {
		t.Fatalf("locations: %d", code)
	}
	byName := map[string]string{}
	for _, l := range locs.Value {
		byName[l.Name] = l.DisplayName
		if l.Type != "Region" {
			t.Errorf("location %s has type %q", l.Name, l.Type)
		}
	}
	if byName["westeurope"] != "West Europe" || byName["eastus2"] != "East US 2" {
		t.Errorf("locations lack westeurope / eastus2: %v", byName)
	}
	if _, ok := byName["usgovvirginia"]; ok {
		t.Error("the public cloud lists a US Government region")
	}

	nobody, err := azidentity.NewClientSecretCredential(tenantID, "77777777-0000-4000-8000-000000000007", "s",
		&azidentity.ClientSecretCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	if code := armGet(t, f, nobody, "/subscriptions/"+subscriptionID+"/locations", "2022-12-01", nil); code != http.StatusForbidden {
		t.Errorf("locations for a principal without a role: %d, want 403", code)
	}
}
