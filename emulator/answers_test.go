package emulator_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// answerReads are a resource's answer as a client sees it three ways, each through the
// SDK: the write's own (the long-running operation's final body, or the synchronous
// answer), a GET, and its entry in its collection's list.
type answerReads struct{ put, get, list map[string]any }

// answersOf writes body to id and reads the answer back the three ways.
func (f *fixture) answersOf(t *testing.T, cred azcore.TokenCredential, id, api string, body armresources.GenericResource) answerReads {
	t.Helper()
	res := f.resources(t, cred)
	written, err := put(t, res, id, api, body)
	if err != nil {
		t.Fatalf("PUT %s: %v", id, err)
	}
	var out answerReads
	out.put = asMap(t, written)
	got, err := res.GetByID(ctxT(t), id, api, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", id, err)
	}
	out.get = asMap(t, got.GenericResource)
	out.list = f.listed(t, cred, id, api)
	return out
}

// listed finds id in the list of its collection ({parent}/{type}), read through the
// SDK's ARM pipeline.
func (f *fixture) listed(t *testing.T, cred azcore.TokenCredential, id, api string) map[string]any {
	t.Helper()
	cl, err := arm.NewClient("emulator.test", "v0.0.1", cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(ctxT(t), http.MethodGet, runtime.JoinPaths(cl.Endpoint(), id[:strings.LastIndex(id, "/")]))
	if err != nil {
		t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", api)
	req.Raw().URL.RawQuery = q.Encode()
	resp, err := cl.Pipeline().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		t.Fatalf("list of %s: %v", id, runtime.NewResponseError(resp))
	}
	var page struct{ Value []map[string]any }
	if err := runtime.UnmarshalAsJSON(resp, &page); err != nil {
		t.Fatal(err)
	}
	for _, v := range page.Value {
		if s, _ := v["id"].(string); strings.EqualFold(s, id) {
			return v
		}
	}
	t.Fatalf("%s is not in its collection's list", id)
	return nil
}

// asMap turns an SDK model into the JSON object a client would read.
func asMap(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// dig reads a value by keys (strings) and list indexes (ints); nil when absent.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func has(v any, path ...any) bool {
	m, _ := dig(v, path[:len(path)-1]...).(map[string]any)
	_, ok := m[path[len(path)-1].(string)]
	return ok
}

// each runs check on the three reads, naming the read that failed.
func (a answerReads) each(t *testing.T, check func(how string, body map[string]any)) {
	t.Helper()
	check("the write's answer", a.put)
	check("GET", a.get)
	check("the list", a.list)
}

const (
	cosmosAPI = "2025-10-15"
	apimAPI   = "2024-05-01"
)

// Each class of issue 27 as Azure answers it, observed through the write's answer, GET
// and the list, each from the public source README.md cites.
func TestAnswersEachTransformThroughGetAndList(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "answers")
	rg := rgScope + "answers/providers/"
	account := rg + "Microsoft.DocumentDB/databaseAccounts/ddb1"
	service := rg + "Microsoft.ApiManagement/service/apim1"
	res := f.resources(t, cred)
	for _, p := range []struct {
		id, api string
		body    armresources.GenericResource
	}{
		{account, cosmosAPI, armresources.GenericResource{Location: to.Ptr("westus"), Properties: map[string]any{"databaseAccountOfferType": "Standard"}}},
		{account + "/sqlDatabases/db1", cosmosAPI, armresources.GenericResource{Properties: map[string]any{"resource": map[string]any{"id": "db1"}}}},
		{service, apimAPI, armresources.GenericResource{Location: to.Ptr("westus"), SKU: &armresources.SKU{Name: to.Ptr("Developer"), Capacity: to.Ptr[int32](1)},
			Properties: map[string]any{"publisherEmail": "ops@contoso.example", "publisherName": "Contoso"}}},
		{service + "/apis/parent", apimAPI, armresources.GenericResource{Properties: map[string]any{"displayName": "Parent", "path": "parent", "protocols": []any{"https"}}}},
	} {
		if _, err := put(t, res, p.id, p.api, p.body); err != nil {
			t.Fatalf("parent %s: %v", p.id, err)
		}
	}
	const policySent = "<policies> <inbound /> <backend>    <forward-request />  </backend>  <outbound /></policies>"
	const policyAnswered = "<policies>\r\n  <inbound />\r\n  <backend>\r\n    <forward-request />\r\n  </backend>\r\n  <outbound />\r\n</policies>"

	tests := []struct {
		name       string
		id, api    string
		transforms []emulator.AnswerTransform
		class      emulator.AnswerClass // of the first transform
		body       armresources.GenericResource
		check      func(t *testing.T, how string, body map[string]any)
	}{{
		name: "rewritten: case of an enum", id: rg + "Microsoft.ContainerService/managedClusters/aks1", api: "2024-09-01",
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.ContainerService/managedClusters",
			Path: "properties.networkProfile.loadBalancerProfile.backendPoolType", Op: emulator.OpCase, Case: emulator.CaseCamel}},
		class: emulator.ClassRewritten,
		body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"dnsPrefix": "aks1",
			"agentPoolProfiles": []any{map[string]any{"name": "system", "count": 1, "vmSize": "Standard_D2s_v5"}},
			"networkProfile":    map[string]any{"loadBalancerProfile": map[string]any{"backendPoolType": "NodeIPConfiguration"}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "networkProfile", "loadBalancerProfile", "backendPoolType"); got != "nodeIPConfiguration" {
				t.Errorf("%s: backendPoolType %v, want nodeIPConfiguration", how, got)
			}
		},
	}, {
		name: "rewritten: location names as display names", id: rg + "Microsoft.DocumentDB/databaseAccounts/ddb2", api: cosmosAPI,
		transforms: []emulator.AnswerTransform{
			{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "location", Op: emulator.OpDisplayLocation},
			{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "properties.locations[].locationName", Op: emulator.OpDisplayLocation}},
		class: emulator.ClassRewritten,
		body: armresources.GenericResource{Location: to.Ptr("westus"), Properties: map[string]any{"databaseAccountOfferType": "Standard",
			"locations": []any{map[string]any{"locationName": "southcentralus", "failoverPriority": 0}, map[string]any{"locationName": "uksouth", "failoverPriority": 1}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if b["location"] != "West US" || dig(b, "properties", "locations", 0, "locationName") != "South Central US" ||
				dig(b, "properties", "locations", 1, "locationName") != "UK South" {
				t.Errorf("%s: location %v, locations %v; want West US, South Central US and UK South", how, b["location"], dig(b, "properties", "locations"))
			}
		},
	}, {
		name: "added default", id: rg + "Microsoft.DocumentDB/databaseAccounts/ddb3", api: cosmosAPI,
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "properties.enableFreeTier",
			Op: emulator.OpAddDefault, Value: json.RawMessage(`false`)},
			{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "properties.consistencyPolicy.defaultConsistencyLevel",
				Op: emulator.OpAddDefault, Value: json.RawMessage(`"Session"`)}},
		class: emulator.ClassAddedDefault,
		body: armresources.GenericResource{Location: to.Ptr("westus"), Properties: map[string]any{"databaseAccountOfferType": "Standard",
			"consistencyPolicy": map[string]any{"defaultConsistencyLevel": "Eventual"}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got, ok := dig(b, "properties", "enableFreeTier").(bool); !ok || got {
				t.Errorf("%s: enableFreeTier %v, want the default false", how, dig(b, "properties", "enableFreeTier"))
			}
			if got := dig(b, "properties", "consistencyPolicy", "defaultConsistencyLevel"); got != "Eventual" {
				t.Errorf("%s: a default replaced the value sent: %v", how, got)
			}
		},
	}, {
		name: "added element: the Consumption workload profile", id: rg + "Microsoft.App/managedEnvironments/env1", api: "2025-01-01",
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.App/managedEnvironments", Path: "properties.workloadProfiles",
			Op: emulator.OpAddElement, Value: json.RawMessage(`{"name":"Consumption","workloadProfileType":"Consumption"}`)}},
		class: emulator.ClassAddedElement,
		body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"workloadProfiles": []any{
			map[string]any{"name": "gp", "workloadProfileType": "D4", "minimumCount": 1, "maximumCount": 3}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			profiles, _ := dig(b, "properties", "workloadProfiles").([]any)
			if len(profiles) != 2 || dig(profiles, 0, "name") != "gp" || dig(profiles, 1, "name") != "Consumption" ||
				dig(profiles, 1, "workloadProfileType") != "Consumption" {
				t.Errorf("%s: workloadProfiles %v, want gp then Consumption", how, profiles)
			}
		},
	}, {
		name: "added element: Cosmos DB's _etag excluded path", id: account + "/sqlDatabases/db1/containers/c1", api: cosmosAPI,
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
			Path: "properties.resource.indexingPolicy.excludedPaths", Op: emulator.OpAddElement, Value: json.RawMessage(`{"path":"/\"_etag\"/?"}`)}},
		class: emulator.ClassAddedElement,
		body: armresources.GenericResource{Properties: map[string]any{"resource": map[string]any{"id": "c1",
			"partitionKey":   map[string]any{"paths": []any{"/id"}, "kind": "Hash"},
			"indexingPolicy": map[string]any{"indexingMode": "consistent", "includedPaths": []any{map[string]any{"path": "/*"}}, "excludedPaths": []any{}}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			got := dig(b, "properties", "resource", "indexingPolicy", "excludedPaths")
			if !reflect.DeepEqual(got, []any{map[string]any{"path": `/"_etag"/?`}}) {
				t.Errorf("%s: excludedPaths %v, want [{path /\"_etag\"/?}]", how, got)
			}
		},
	}, {
		name: "absent: create-time options and location", id: account + "/sqlDatabases/db2", api: cosmosAPI,
		transforms: []emulator.AnswerTransform{
			{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: "properties.options", Op: emulator.OpDrop},
			{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: "location", Op: emulator.OpDrop}},
		class: emulator.ClassAbsent,
		body: armresources.GenericResource{Location: to.Ptr("West US"), Properties: map[string]any{"resource": map[string]any{"id": "db2"},
			"options": map[string]any{"throughput": 400}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if has(b, "location") || has(b, "properties", "options") || dig(b, "properties", "resource", "id") != "db2" {
				t.Errorf("%s: location %v, options %v, resource %v; want neither location nor options", how, b["location"],
					dig(b, "properties", "options"), dig(b, "properties", "resource"))
			}
		},
	}, {
		name: "rewritten: a named set in Azure's order", id: rg + "Microsoft.Network/networkSecurityGroups/nsg1", api: "2025-05-01",
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.Network/networkSecurityGroups", Path: "properties.securityRules", Op: emulator.OpReorder}},
		class:      emulator.ClassRewritten,
		body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"securityRules": []any{
			map[string]any{"name": "b-allow-https", "properties": map[string]any{"priority": 100, "access": "Allow", "direction": "Inbound", "protocol": "Tcp"}},
			map[string]any{"name": "a-deny-all", "properties": map[string]any{"priority": 4000, "access": "Deny", "direction": "Inbound", "protocol": "*"}}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if a, c := dig(b, "properties", "securityRules", 0, "name"), dig(b, "properties", "securityRules", 1, "name"); a != "a-deny-all" || c != "b-allow-https" {
				t.Errorf("%s: rules %v, %v; want a-deny-all then b-allow-https", how, a, c)
			}
		},
	}, {
		name: "rewritten: a policy's XML re-indented", id: service + "/apis/parent/policies/policy", api: apimAPI,
		transforms: []emulator.AnswerTransform{
			{Type: "Microsoft.ApiManagement/service/apis/policies", Path: "properties.value", Op: emulator.OpReformatXML},
			{Type: "Microsoft.ApiManagement/service/apis/policies", Path: "properties.format", Op: emulator.OpDrop}},
		class: emulator.ClassRewritten,
		body:  armresources.GenericResource{Properties: map[string]any{"format": "xml", "value": policySent}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "value"); got != policyAnswered || has(b, "properties", "format") {
				t.Errorf("%s: value %q, format %v; want the example's answer %q and no format", how, got, dig(b, "properties", "format"), policyAnswered)
			}
		},
	}, {
		name: "rewritten: a relative scope as the service's ID", id: service + "/subscriptions/all-apis", api: apimAPI,
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.ApiManagement/service/subscriptions", Path: "properties.scope",
			Op: emulator.OpExpandID, Of: "Microsoft.ApiManagement/service"}},
		class: emulator.ClassRewritten,
		body:  armresources.GenericResource{Properties: map[string]any{"displayName": "All APIs", "scope": "/apis"}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "scope"); got != service+"/apis" {
				t.Errorf("%s: scope %v, want %s/apis", how, got, service)
			}
		},
	}, {
		name: "rewritten: an API's path without its slash", id: service + "/apis/echo", api: apimAPI,
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.ApiManagement/service/apis", Path: "properties.path", Op: emulator.OpTrimSlash}},
		class:      emulator.ClassRewritten,
		body:       armresources.GenericResource{Properties: map[string]any{"displayName": "Echo", "path": "/echo", "protocols": []any{"https"}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "path"); got != "echo" {
				t.Errorf("%s: path %v, want echo", how, got)
			}
		},
	}, {
		name: "integer enum", id: account + "/mongodbRoleDefinitions/role1", api: cosmosAPI,
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/mongodbRoleDefinitions", Path: "properties.type",
			Op: emulator.OpIntEnum, Enum: []string{"BuiltInRole", "CustomRole"}}},
		class: emulator.ClassIntegerEnum,
		body: armresources.GenericResource{Properties: map[string]any{"roleName": "reader", "type": "CustomRole", "databaseName": "sales",
			"privileges": []any{map[string]any{"resource": map[string]any{"db": "sales", "collection": "coll"}, "actions": []any{"find"}}}}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "type"); got != float64(1) {
				t.Errorf("%s: type %v (%T), want the integer 1", how, got, got)
			}
		},
	}, {
		name: "forced: soft delete always on", id: rg + "Microsoft.KeyVault/vaults/kv1", api: "2024-11-01",
		transforms: []emulator.AnswerTransform{{Type: "Microsoft.KeyVault/vaults", Path: "properties.enableSoftDelete", Op: emulator.OpForce, Value: json.RawMessage(`true`)}},
		class:      emulator.ClassForced,
		body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"tenantId": tenantID,
			"sku": map[string]any{"family": "A", "name": "standard"}, "enableSoftDelete": false}},
		check: func(t *testing.T, how string, b map[string]any) {
			if got := dig(b, "properties", "enableSoftDelete"); got != true {
				t.Errorf("%s: enableSoftDelete %v, want true", how, got)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.emu.SetAnswerTransforms(tt.transforms...); err != nil {
				t.Fatal(err)
			}
			if got := f.emu.AnswerTransforms()[0].Class; got != tt.class {
				t.Errorf("class %q, want %q", got, tt.class)
			}
			reads := f.answersOf(t, cred, tt.id, tt.api, tt.body)
			reads.each(t, func(how string, b map[string]any) { tt.check(t, how, b) })

			// Sending the answer back (as an import would) is answered the same.
			again := f.answersOf(t, cred, tt.id, tt.api, armresources.GenericResource{
				Location: asString(reads.get["location"]), Properties: reads.get["properties"], SKU: tt.body.SKU})
			if !reflect.DeepEqual(again.get["properties"], reads.get["properties"]) || !reflect.DeepEqual(again.get["location"], reads.get["location"]) {
				t.Errorf("the answer written back is answered differently:\nfirst %v\nthen  %v", reads.get, again.get)
			}
		})
	}
}

func asString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// A value Azure recomputes after provisioning: the write's answer (and the first read
// that shows Succeeded) still has the value sent, every read after it the recomputed
// one, and later writes answer the recomputed value at once.
func TestAnswersValueChangesOnceAfterSucceeded(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "later")
	res := f.resources(t, cred)
	tests := []struct {
		name, id, api, typ, path string
		body                     armresources.GenericResource
		read                     func(map[string]any) any
	}{
		{name: "long-running (Redis)", id: rgScope + "later/providers/Microsoft.Cache/redis/cache1", api: "2024-03-01", typ: "Microsoft.Cache/redis",
			path: "properties.redisConfiguration.maxmemory-reserved",
			body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0},
				"redisConfiguration": map[string]any{"maxmemory-policy": "allkeys-lru", "maxmemory-reserved": "30"}}},
			read: func(b map[string]any) any { return dig(b, "properties", "redisConfiguration", "maxmemory-reserved") }},
		{name: "synchronous", id: rgScope + "later/providers/" + widgetsType + "/w1", api: "2024-01-01", typ: widgetsType,
			path: "properties.redisConfiguration.maxmemory-reserved",
			body: armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"redisConfiguration": map[string]any{"maxmemory-reserved": "30"}}},
			read: func(b map[string]any) any { return dig(b, "properties", "redisConfiguration", "maxmemory-reserved") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.emu.SetAnswerTransforms(emulator.AnswerTransform{Type: tt.typ, Path: tt.path, Op: emulator.OpChangeAfterSucceeded, Value: json.RawMessage(`"50"`)}); err != nil {
				t.Fatal(err)
			}
			if c := f.emu.AnswerTransforms()[0].Class; c != emulator.ClassForced {
				t.Errorf("class %q, want forced", c)
			}
			written, err := put(t, res, tt.id, tt.api, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.read(asMap(t, written)); got != "30" {
				t.Errorf("the write's answer: %v, want the value sent, 30", got)
			}
			for i := range 2 {
				got, err := res.GetByID(ctxT(t), tt.id, tt.api, nil)
				if err != nil {
					t.Fatal(err)
				}
				if v := tt.read(asMap(t, got.GenericResource)); v != "50" {
					t.Errorf("GET %d after Succeeded: %v, want the recomputed 50", i+1, v)
				}
			}
			if v := tt.read(f.listed(t, cred, tt.id, tt.api)); v != "50" {
				t.Errorf("the list: %v, want 50", v)
			}
			again, err := put(t, res, tt.id, tt.api, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.read(asMap(t, again)); got != "50" {
				t.Errorf("a later write's answer: %v, want 50 at once (the change happens once)", got)
			}
		})
	}
}

// A portal edit (the Control API's out-of-band merge patch) changes the stored answer as
// it is, with no transform; the next write is answered through the transforms again.
func TestAnswersPortalEditOnTop(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "portal")
	const api = "2024-11-01"
	id := rgScope + "portal/providers/Microsoft.KeyVault/vaults/kv1"
	if err := f.emu.SetAnswerTransforms(
		emulator.AnswerTransform{Type: "Microsoft.KeyVault/vaults", Path: "properties.enableSoftDelete", Op: emulator.OpForce, Value: json.RawMessage(`true`)},
		emulator.AnswerTransform{Type: "Microsoft.KeyVault/vaults", Path: "location", Op: emulator.OpDisplayLocation},
	); err != nil {
		t.Fatal(err)
	}
	body := armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"tenantId": tenantID,
		"sku": map[string]any{"family": "A", "name": "standard"}, "enableSoftDelete": false, "enablePurgeProtection": false}}
	f.answersOf(t, cred, id, api, body).each(t, func(how string, b map[string]any) {
		if dig(b, "properties", "enableSoftDelete") != true || b["location"] != "West Europe" {
			t.Errorf("%s before the edit: enableSoftDelete %v location %v", how, dig(b, "properties", "enableSoftDelete"), b["location"])
		}
	})
	if _, err := f.emu.PatchResource(context.Background(), id, []byte(`{"properties":{"enableSoftDelete":false,"enablePurgeProtection":true}}`)); err != nil {
		t.Fatal(err)
	}
	res := f.resources(t, cred)
	got, err := res.GetByID(ctxT(t), id, api, nil)
	if err != nil {
		t.Fatal(err)
	}
	for how, b := range map[string]map[string]any{"GET": asMap(t, got.GenericResource), "the list": f.listed(t, cred, id, api)} {
		if dig(b, "properties", "enableSoftDelete") != false || dig(b, "properties", "enablePurgeProtection") != true || b["location"] != "West Europe" {
			t.Errorf("%s after the portal edit: %v, want the edit as made", how, b["properties"])
		}
	}
	f.answersOf(t, cred, id, api, body).each(t, func(how string, b map[string]any) {
		if dig(b, "properties", "enableSoftDelete") != true || dig(b, "properties", "enablePurgeProtection") != false {
			t.Errorf("%s of the write that puts it back: %v", how, b["properties"])
		}
	})
}

// A transform of another type, or at a path the body does not have, leaves the echo as
// it is.
func TestAnswersTransformNotMatchingLeavesEcho(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "echo")
	const api = "2024-01-01"
	body := armresources.GenericResource{Location: to.Ptr("westus"), Tags: map[string]*string{"team": to.Ptr("a")},
		Properties: map[string]any{"color": "Blue", "size": float64(3), "enabled": false, "path": "/x",
			"items": []any{map[string]any{"name": "b"}, map[string]any{"name": "a"}}}}
	echo := f.answersOf(t, cred, rgScope+"echo/providers/"+widgetsType+"/plain", api, body)

	other := "Microsoft.Test/gadgets"
	var ts []emulator.AnswerTransform
	for _, op := range emulator.AnswerOps {
		// Every operation at a path the widget has, but for another type...
		t := emulator.AnswerTransform{Type: other, Op: op, Path: "properties.color", Case: emulator.CaseUpper,
			Enum: []string{"Blue"}, Value: json.RawMessage(`"Red"`)}
		switch op {
		case emulator.OpDisplayLocation:
			t.Path = "location"
		case emulator.OpAddElement, emulator.OpReorder:
			t.Path = "properties.items"
		case emulator.OpTrimSlash, emulator.OpExpandID:
			t.Path = "properties.path"
		}
		ts = append(ts, t)
		// ...and for the widget's type at paths it does not have.
		if op != emulator.OpAddDefault && op != emulator.OpForce && op != emulator.OpAddElement && op != emulator.OpChangeAfterSucceeded {
			t.Type, t.Path = widgetsType, "properties.missing[].deeper"
			ts = append(ts, t)
		}
	}
	if err := f.emu.SetAnswerTransforms(ts...); err != nil {
		t.Fatal(err)
	}
	got := f.answersOf(t, cred, rgScope+"echo/providers/"+widgetsType+"/transformed", api, body)
	strip := func(m map[string]any) map[string]any {
		m = cloneMap(m)
		delete(m, "id")
		delete(m, "name")
		return m
	}
	for how, pair := range map[string][2]map[string]any{"the write's answer": {echo.put, got.put}, "GET": {echo.get, got.get}, "the list": {echo.list, got.list}} {
		if !reflect.DeepEqual(strip(pair[0]), strip(pair[1])) {
			t.Errorf("%s changed:\necho %v\ngot  %v", how, pair[0], pair[1])
		}
	}
	if got.get["location"] != "westus" || dig(got.get, "properties", "color") != "Blue" {
		t.Errorf("not an echo: %v", got.get)
	}
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// perturbBody has a place for every operation Perturb knows.
const perturbBody = `{
  "location": "westus",
  "tags": {"team": "Alpha"},
  "properties": {
    "tier": "Standard_LRS",
    "enabled": true,
    "replicas": 2,
    "path": "/orders",
    "scope": "/apis",
    "policy": "<policies> <inbound /></policies>",
    "regions": [{"name": "primary", "locationName": "southcentralus"}, {"name": "backup", "locationName": "uksouth"}],
    "rules": [{"name": "zeta", "priority": 200}, {"name": "alpha", "priority": 100}],
    "protocols": ["https"],
    "settings": {"mode": "fast"}
  }
}`

// Perturb is deterministic for a seed, type and body, picks one transform per operation
// at paths that do not overlap, and each transform it picks changes the answer.
func TestAnswersPerturbDeterministic(t *testing.T) {
	const typ = "Microsoft.Test/widgets/parts"
	first, err := emulator.Perturb(7, typ, []byte(perturbBody))
	if err != nil {
		t.Fatal(err)
	}
	second, _ := emulator.Perturb(7, typ, []byte(perturbBody))
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("seed 7 gave two answers:\n%v\n%v", first, second)
	}
	var ops []emulator.AnswerOp
	var paths []string
	for _, tr := range first {
		ops = append(ops, tr.Op)
		for _, p := range paths {
			if p == tr.Path || strings.HasPrefix(tr.Path, p+".") || strings.HasPrefix(p, tr.Path+".") ||
				strings.HasPrefix(tr.Path, p+"[") || strings.HasPrefix(p, tr.Path+"[") {
				t.Errorf("%s overlaps %s", tr.Path, p)
			}
		}
		paths = append(paths, tr.Path)
		if tr.Type != typ || tr.Class == "" || !strings.Contains(tr.Source, "seed 7") {
			t.Errorf("transform %+v: want type, class and the seed named", tr)
		}
		if strings.HasPrefix(tr.Path, "tags") || strings.HasSuffix(tr.Path, ".name") {
			t.Errorf("%s touches tags or a name", tr)
		}
	}
	if !slices.Equal(ops, emulator.AnswerOps) {
		t.Errorf("ops %v, want one of each of %v", ops, emulator.AnswerOps)
	}
	distinct := map[string]bool{}
	for seed := range uint64(8) {
		ts, _ := emulator.Perturb(seed, typ, []byte(perturbBody))
		b, _ := json.Marshal(ts)
		distinct[string(b)] = true
		if len(ts) != len(emulator.AnswerOps) {
			t.Errorf("seed %d: %d transforms, want one per operation: %v", seed, len(ts), ts)
		}
	}
	if len(distinct) < 2 {
		t.Errorf("8 seeds picked the same transforms")
	}
	if only, _ := emulator.Perturb(7, typ, []byte(perturbBody), emulator.OpCase); len(only) != 1 || only[0].Op != emulator.OpCase {
		t.Errorf("only case: %v", only)
	}

	// Each transform alone changes what the emulator answers.
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "perturb")
	const api = "2024-01-01"
	parent := rgScope + "perturb/providers/Microsoft.Test/widgets/w"
	res := f.resources(t, cred)
	if _, err := put(t, res, parent, api, armresources.GenericResource{Location: to.Ptr("westus")}); err != nil {
		t.Fatal(err)
	}
	var body armresources.GenericResource
	if err := json.Unmarshal([]byte(perturbBody), &body); err != nil {
		t.Fatal(err)
	}
	echo := f.answersOf(t, cred, parent+"/parts/echo", api, body)
	for i, tr := range first {
		t.Run(string(tr.Op), func(t *testing.T) {
			if err := f.emu.SetAnswerTransforms(tr); err != nil {
				t.Fatal(err)
			}
			got := f.answersOf(t, cred, parent+"/parts/p"+strconv.Itoa(i), api, body)
			if reflect.DeepEqual(got.get["properties"], echo.get["properties"]) && reflect.DeepEqual(got.get["location"], echo.get["location"]) {
				t.Errorf("%s: the answer is the echo %v", tr, got.get)
			}
			if !reflect.DeepEqual(got.get["tags"], echo.get["tags"]) {
				t.Errorf("%s changed the tags: %v", tr, got.get["tags"])
			}
		})
	}
}

// The Control API sets, shows and clears the transforms, and refuses invalid ones
// without changing those in force.
func TestAnswersControlAPI(t *testing.T) {
	f := newFixture(t)
	call := func(method, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctxT(t), method, f.emu.URL()+"/_emulator/answers", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := f.emu.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := call(http.MethodPut, `[{"type":"Microsoft.KeyVault/vaults","path":"properties.enableSoftDelete","op":"force","value":true,"source":"armkeyvault models.go"}]`)
	if status != http.StatusOK || !strings.Contains(body, `"class":"forced"`) {
		t.Fatalf("PUT: %d %s", status, body)
	}
	for _, bad := range []struct{ body, says string }{
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties.x","op":"shuffle"}]`, `shuffle\" is not one of`},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties..x","op":"drop"}]`, "a key is empty"},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties.x","op":"force"}]`, "needs a value"},
		{`[{"type":"vaults","path":"properties.x","op":"drop"}]`, "not an ARM resource type"},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"name","op":"drop"}]`, "id, name and type"},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties.x","op":"case","case":"title"}]`, "lower, upper, camel or pascal"},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties.x","op":"drop","class":"odd"}]`, `odd\" is not one of`},
		{`[{"type":"Microsoft.KeyVault/vaults","path":"properties.x[2","op":"drop"}]`, "not closed"},
	} {
		status, body := call(http.MethodPut, bad.body)
		if status != http.StatusBadRequest || !strings.Contains(body, bad.says) {
			t.Errorf("PUT %s: %d %s, want 400 saying %q", bad.body, status, body, bad.says)
		}
	}
	if status, body := call(http.MethodGet, ""); status != http.StatusOK || !strings.Contains(body, "enableSoftDelete") {
		t.Errorf("GET after refusals: %d %s, want the transform set first", status, body)
	}
	if status, _ := call(http.MethodDelete, ""); status != http.StatusNoContent {
		t.Errorf("DELETE: %d", status)
	}
	if got := f.emu.AnswerTransforms(); len(got) != 0 {
		t.Errorf("after DELETE: %v", got)
	}
}

// Config.Answers are in force from the start and again after Reset.
func TestAnswersFromConfigSurviveReset(t *testing.T) {
	tr := emulator.AnswerTransform{Type: widgetsType, Path: "properties.path", Op: emulator.OpTrimSlash}
	f := newFixture(t, func(c *emulator.Config) { c.Answers = []emulator.AnswerTransform{tr} })
	if err := f.emu.SetAnswerTransforms(); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.Reset(); err != nil {
		t.Fatal(err)
	}
	cred := f.platformCred(t)
	f.createGroup(t, cred, "cfg")
	got := f.answersOf(t, cred, rgScope+"cfg/providers/"+widgetsType+"/w", "2024-01-01",
		armresources.GenericResource{Location: to.Ptr("westus"), Properties: map[string]any{"path": "/x"}})
	got.each(t, func(how string, b map[string]any) {
		if p := dig(b, "properties", "path"); p != "x" {
			t.Errorf("%s: path %v after Reset, want x", how, p)
		}
	})
	if _, err := emulator.New(emulator.Config{Answers: []emulator.AnswerTransform{{Type: widgetsType, Path: "p", Op: "nope"}}}); err == nil ||
		!strings.Contains(err.Error(), "config answers") {
		t.Errorf("New with an invalid transform: %v", err)
	}
}
