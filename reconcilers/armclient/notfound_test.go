package armclient

import (
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/aztenant/aztenant/emulator"
)

// A provider's own 404 for a missing nested resource (Cosmos DB's NotFound, API
// Management's "Api not found.", emulator/notfound.go) is a resource that does
// not exist to the operator, as ARM's ResourceNotFound is: it goes by the status code.
func TestProviderNotFoundCodesAreNotFound(t *testing.T) {
	const tenant, sub, client, secret = "5f1d0c3a-8a4e-4b8e-9f7d-0a1b2c3d4e5f", "3c7a9e2b-1d4f-4a6b-8c9d-2e3f4a5b6c7d", "0a9b8c7d-6e5f-4a3b-9c1d-0e1f2a3b4c5d", "s3cret"
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:       []emulator.Tenant{{ID: tenant}},
		Subscriptions: []emulator.Subscription{{ID: sub, TenantID: tenant}},
		Principals: []emulator.Principal{{ClientID: client, TenantID: tenant, ClientSecret: secret,
			Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + sub}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	cred, err := azidentity.NewClientSecretCredential(tenant, client, secret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := emu.ClientOptions()
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	cl, err := arm.NewClient("test", "v0.1.0", cred, &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	rg := "/subscriptions/" + sub + "/resourceGroups/rg"
	put := func(id, apiVersion, body string) {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		p, err := New(cl, apiVersion).Put(t.Context(), id, m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.PollUntilDone(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	put(rg, "2024-03-01", `{"location":"westeurope"}`)
	put(rg+"/providers/Microsoft.DocumentDB/databaseAccounts/acct", "2025-10-15", `{"location":"westeurope","properties":{"databaseAccountOfferType":"Standard","locations":[{"locationName":"westeurope"}]}}`)
	put(rg+"/providers/Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/db", "2025-10-15", `{"properties":{"resource":{"id":"db"}}}`)
	put(rg+"/providers/Microsoft.ApiManagement/service/apim", "2024-05-01", `{"location":"westeurope","sku":{"name":"Developer","capacity":1},"properties":{"publisherEmail":"a@b.c","publisherName":"a"}}`)
	for _, c := range []struct{ id, apiVersion string }{
		{rg + "/providers/Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/db/containers/gone", "2025-10-15"},
		{rg + "/providers/Microsoft.ApiManagement/service/apim/apis/gone", "2024-05-01"},
	} {
		calls := New(cl, c.apiVersion)
		if body, err := calls.Get(t.Context(), c.id); err != nil || body != nil {
			t.Errorf("GET %s: %v %v, want not found", c.id, body, err)
		}
		if p, err := calls.Delete(t.Context(), c.id); err != nil {
			t.Errorf("DELETE %s: %v", c.id, err)
		} else if p != nil {
			if _, err := p.PollUntilDone(t.Context(), nil); err != nil {
				t.Errorf("DELETE %s: %v", c.id, err)
			}
		}
	}
}
