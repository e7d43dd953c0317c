package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// FuzzARMRequest sends arbitrary ARM requests (method, path below the
// subscription or the subscription itself, JSON body) through the emulator's
// handler as the platform principal, who may do anything, so parsing goes as
// deep as it can. Whatever the input, the emulator must not panic or answer
// 5xx (no faults are configured): a malformed request is the client's error,
// in ARM's error shape, and a success carries JSON.
func FuzzARMRequest(f *testing.F) {
	methods := []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost, http.MethodHead}
	for _, s := range []struct {
		method uint8
		path   string
		body   string
	}{
		{1, "resourceGroups/rg", `{"location":"westeurope","tags":{"a":"b"}}`},
		{1, "resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa1", `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`},
		{1, "resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa1/blobServices/default/containers/c1", `{"properties":{"metadata":{"k":"v"}}}`},
		{4, "resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa1/listKeys", ``},
		{1, "resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id/federatedIdentityCredentials/f", `{"properties":{"issuer":"https://i.example","subject":"s","audiences":["api://AzureADTokenExchange"]}}`},
		{1, "resourceGroups/rg/providers/Microsoft.Authorization/roleAssignments/0b1c2d3e-0000-4000-8000-000000000001", `{"properties":{"roleDefinitionId":"/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","principalId":"00000000-0000-0000-0000-000000000000"}}`},
		{1, "resourceGroups/rg/providers/Microsoft.Cache/redis/r", `{"location":"westeurope","properties":{"sku":{"name":"Basic","family":"C","capacity":0}}}`},
		{1, "resourceGroups/rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg/firewallRules/r", `{"properties":{"startIpAddress":"10.0.0.300","endIpAddress":"1.2.3.4"}}`},
		{1, "resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks", `{"location":"westeurope","properties":{"agentPoolProfiles":[{"count":-1}]}}`},
		{2, "resourceGroups/rg", `{"tags":null}`},
		{0, "resourcegroups", ``},
		{0, "resources", ``},
		{0, "providers/Microsoft.Storage", ``},
		{4, "providers/Microsoft.Storage/register", ``},
		{3, "resourceGroups/rg", ``},
		{1, "resourceGroups/rg/../x", `null`},
		{1, "resourceGroups//providers/a/b/c", `[]`},
		{1, "/bad-subscription/resourceGroups/rg", `{"location":1}`},
		{1, "resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/x/blobServices", "{\"location\":\"\xff\"}"},
	} {
		f.Add(s.method, s.path, []byte(s.body))
	}
	fx := newFixture(f)
	tok, err := fx.platformCred(f).GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method uint8, path string, body []byte) {
		p := "/subscriptions/" + subscriptionID + "/" + path
		if strings.HasPrefix(path, "/") {
			p = "/subscriptions" + path // fuzz the subscription segment too
		}
		m := methods[int(method)%len(methods)]
		req := httptest.NewRequest(m, "https://emulator.test/", bytes.NewReader(body))
		req.URL.Path, req.URL.RawPath, req.URL.RawQuery = p, "", "api-version=2023-05-01"
		req.Header.Set("Authorization", "Bearer "+tok.Token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		fx.emu.ServeHTTP(rec, req)

		status, out := rec.Code, rec.Body.Bytes()
		if status >= 500 {
			t.Fatalf("%s %s %q: %d %s", m, p, body, status, out)
		}
		if m == http.MethodHead || len(out) == 0 {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s %s: %d with a body that is not JSON: %q", m, p, status, out)
		}
		if status >= 400 {
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			if json.Unmarshal(out, &e) != nil || e.Error.Code == "" {
				t.Fatalf("%s %s: %d without an ARM error code: %s", m, p, status, out)
			}
		}
	})
}
