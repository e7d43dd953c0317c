package reconcilers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// For each class of answer of issue 27, a kind's body for a spec against an
// answer shaped as Azure gives it (its documented example, from
// emulator/answers, changed only as the trial saw Azure differ from
// it) shows no difference with the kind's facts, and one without them; a real
// change in Azure is still a difference.

// example is a kind's entry of emulator/answers/zz_generated_<module>.json.
type example struct {
	Request map[string]any `json:"request"`
	Answer  map[string]any `json:"answer"`
}

func exampleOf(t *testing.T, module, key string) example {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "emulator", "answers", "zz_generated_"+module+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Kinds map[string]struct {
			Example example `json:"example"`
		} `json:"kinds"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	e, ok := file.Kinds[key]
	if !ok || e.Example.Answer == nil {
		t.Fatalf("no documented example for %s in %s", key, module)
	}
	return e.Example
}

// specOf is an example's request as a generated kind's spec: its properties
// beside its location and tags.
func specOf(request map[string]any) map[string]any {
	spec := map[string]any{"owner": map[string]any{"name": "parent"}}
	for k, v := range request {
		if k == "properties" {
			for pk, pv := range v.(map[string]any) {
				spec[pk] = pv
			}
			continue
		}
		spec[k] = v
	}
	return spec
}

// bodyOf is the PUT body kind k's reconcile builds for the spec.
// served is the kind of kinds.All whose objects are proto's: a generated kind with its
// overlay applied, where it has one.
func served(t *testing.T, proto reconcilers.Kind) reconcilers.Kind {
	t.Helper()
	want := reflect.TypeOf(proto.New())
	for _, k := range kinds.All() {
		if reflect.TypeOf(k.New()) == want {
			return k
		}
	}
	t.Fatalf("%T is not among kinds.All", proto)
	return nil
}

func bodyOf(t *testing.T, k reconcilers.Kind, spec map[string]any) map[string]any {
	t.Helper()
	body, err := reconcilers.DesiredForTest(k, objectOf(t, k, spec))
	if err != nil {
		t.Fatalf("%T: %v", k, err)
	}
	return body
}

func objectOf(t *testing.T, k reconcilers.Kind, spec map[string]any) azurev1alpha1.Resource {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"name": "x", "namespace": "ns", "uid": "u"}, "spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	obj := k.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		t.Fatalf("%T: %v", k, err)
	}
	return obj
}

// plain is a kind without its facts about answers: the comparison as it was.
type plain struct{ reconcilers.Kind }

func (p plain) Facts() reconcilers.Facts {
	f := p.Kind.Facts()
	f.Normalize, f.NotReturned, f.Forced, f.OpenValues, f.OpenSets = nil, nil, nil, nil, nil
	return f
}

// copyOf is a deep copy of a JSON value.
func copyOf(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// set puts v at a dotted path of nested objects; "-" as v deletes it.
func set(m map[string]any, path string, v any) map[string]any {
	keys := strings.Split(path, ".")
	cur := m
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	if v == "-" {
		delete(cur, keys[len(keys)-1])
	} else {
		cur[keys[len(keys)-1]] = v
	}
	return m
}

// answerCase is a body for a spec, Azure's answer to it, and a change in Azure.
type answerCase struct {
	name   string
	kind   reconcilers.Kind
	body   map[string]any
	answer map[string]any
	// change makes a real change to a copy of the answer; want is the path it
	// must be reported at.
	change func(answer map[string]any)
	want   string
}

func (c answerCase) check(t *testing.T) {
	t.Helper()
	if d := reconcilers.DifferencesForTest(c.kind, c.body, c.answer); len(d) > 0 {
		t.Errorf("%s: Azure's answer differs from the spec at %v; want no difference", c.name, d)
	}
	if d := reconcilers.DifferencesForTest(plain{c.kind}, c.body, c.answer); len(d) == 0 {
		t.Errorf("%s: no difference even without the kind's facts, so the case shows nothing", c.name)
	}
	changed := copyOf(t, c.answer)
	c.change(changed)
	if d := reconcilers.DifferencesForTest(c.kind, c.body, changed); !reflect.DeepEqual(d, []string{c.want}) {
		t.Errorf("%s: after a change in Azure the differences are %v, want [%s]", c.name, d, c.want)
	}
}

// Values Azure never returns: Cosmos DB's create options and a child's
// location, a web app's app settings, a vault's create mode.
func TestNormalizeNeverReturned(t *testing.T) {
	var cases []answerCase
	for _, c := range []struct {
		kind reconcilers.Kind
		key  string
		// location: the kind sends one, which the trial saw left out.
		location bool
	}{
		{kinds.SqlDatabase{}, "documentdb/SqlDatabase", true},
		{kinds.SqlDatabaseContainerStoredProcedure{}, "documentdb/SqlDatabaseContainerStoredProcedure", true},
		{kinds.SqlDatabaseContainerTrigger{}, "documentdb/SqlDatabaseContainerTrigger", true},
		{kinds.SqlDatabaseContainerUserDefinedFunction{}, "documentdb/SqlDatabaseContainerUserDefinedFunction", true},
		{kinds.MongodbDatabase{}, "documentdb/MongodbDatabase", false},
		{kinds.GremlinDatabase{}, "documentdb/GremlinDatabase", false},
		{kinds.CassandraKeyspace{}, "documentdb/CassandraKeyspace", false},
		{kinds.DatabaseAccountsTable{}, "documentdb/DatabaseAccountsTable", false},
	} {
		ex := exampleOf(t, "cosmos", c.key)
		spec := specOf(ex.Request)
		spec["options"] = map[string]any{"throughput": 400} // the example sends {}, which ARM omits anyway
		answer := copyOf(t, ex.Answer)
		// Examples are documentation: the Mongo database's renames its resource
		// (databaseName answered updatedDatabaseName); Azure keeps the name.
		set(answer, "properties.resource.id", spec["resource"].(map[string]any)["id"])
		if c.location {
			spec["location"] = "westus"
			delete(answer, "location")
		}
		cases = append(cases, answerCase{name: c.key, kind: c.kind, body: bodyOf(t, c.kind, spec), answer: answer,
			change: func(a map[string]any) { set(a, "properties.resource.id", "renamed") }, want: "properties.resource.id"})
	}
	// The example itself echoes the database's location: compared then.
	ex := exampleOf(t, "cosmos", "documentdb/SqlDatabase")
	cases = append(cases, answerCase{name: "SqlDatabase, location answered", kind: kinds.SqlDatabase{},
		body: bodyOf(t, kinds.SqlDatabase{}, set(specOf(ex.Request), "options", map[string]any{"throughput": 400})), answer: ex.Answer,
		change: func(a map[string]any) { a["location"] = "East US" }, want: "location"})

	site := exampleOf(t, "appservice", "web/Site")
	siteSpec := specOf(site.Request)
	siteSpec["serverFarmReference"] = map[string]any{"armId": siteSpec["serverFarmId"]}
	delete(siteSpec, "serverFarmId")
	siteSpec["siteConfig"] = map[string]any{"appSettings": []any{map[string]any{"name": "WEBSITE_RUN_FROM_PACKAGE", "value": "1"}}}
	cases = append(cases, answerCase{name: "web/Site app settings", kind: kinds.Site{}, body: bodyOf(t, kinds.Site{}, siteSpec), answer: site.Answer,
		change: func(a map[string]any) {
			set(a, "properties.siteConfig.appSettings", []any{map[string]any{"name": "WEBSITE_RUN_FROM_PACKAGE", "value": "0"}})
		},
		want: "properties.siteConfig.appSettings[name=WEBSITE_RUN_FROM_PACKAGE].value"})

	vault := exampleOf(t, "keyvault", "keyvault/Vault")
	vaultSpec := specOf(vault.Request)
	vaultSpec["createMode"] = "default"
	delete(vaultSpec, "networkAcls") // answered otherwise (an IP as a /32 range): not a class of the issue
	cases = append(cases, answerCase{name: "keyvault/Vault create mode", kind: kinds.Vault{}, body: bodyOf(t, kinds.Vault{}, vaultSpec), answer: vault.Answer,
		change: func(a map[string]any) { set(a, "properties.enabledForDeployment", false) }, want: "properties.enabledForDeployment"})
	for _, c := range cases {
		c.check(t)
	}
}

// Strings Azure rewrites: policy XML re-indented, a fragment without its root,
// an API's path without its slash, a subscription's scope as an ARM ID, a role
// definition at another scope, a region's display name.
func TestNormalizeRewritten(t *testing.T) {
	apiPolicy := exampleOf(t, "apimanagement", "apimanagement/ApiPolicy")
	var cases []answerCase
	for _, k := range []reconcilers.Kind{kinds.ApiPolicy{}, kinds.Policy{}, kinds.ProductPolicy{}} {
		cases = append(cases, answerCase{name: "policy XML", kind: k, body: bodyOf(t, k, specOf(apiPolicy.Request)), answer: apiPolicy.Answer,
			change: func(a map[string]any) {
				set(a, "properties.value", "<policies>\r\n  <inbound />\r\n  <backend />\r\n  <outbound />\r\n</policies>")
			}, want: "properties.value"})
	}
	fragment := exampleOf(t, "apimanagement", "apimanagement/PolicyFragment")
	cases = append(cases, answerCase{name: "policy fragment", kind: kinds.PolicyFragment{}, body: bodyOf(t, kinds.PolicyFragment{}, specOf(fragment.Request)), answer: fragment.Answer,
		change: func(a map[string]any) {
			set(a, "properties.value", `<json-to-xml apply="never" consider-accept-header="false" />`)
		},
		want: "properties.value"})

	api := exampleOf(t, "apimanagement", "apimanagement/Api")
	apiSpec := specOf(api.Request)
	apiSpec["path"] = "/" + apiSpec["path"].(string)
	delete(apiSpec, "protocols") // answered in another order: not a class of the issue
	cases = append(cases, answerCase{name: "API path", kind: kinds.Api{}, body: bodyOf(t, kinds.Api{}, apiSpec), answer: api.Answer,
		change: func(a map[string]any) { set(a, "properties.path", "otherPath") }, want: "properties.path"})

	sub := exampleOf(t, "apimanagement", "apimanagement/Subscription")
	service := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg1/providers/Microsoft.ApiManagement/service/apimService1"
	subSpec := specOf(sub.Request)
	subSpec["scope"] = strings.TrimPrefix(subSpec["scope"].(string), service) // "/products/5600b59475ff190048060002"
	cases = append(cases, answerCase{name: "subscription scope", kind: kinds.Subscription{}, body: bodyOf(t, kinds.Subscription{}, subSpec), answer: sub.Answer,
		change: func(a map[string]any) { set(a, "properties.scope", service+"/apis") }, want: "properties.scope"})
	allAPIs := copyOf(t, sub.Answer)
	set(allAPIs, "properties.scope", service+"/apis")
	cases = append(cases, answerCase{name: "subscription scope /apis", kind: kinds.Subscription{}, body: bodyOf(t, kinds.Subscription{}, set(copyOf(t, subSpec), "scope", "/apis")), answer: allAPIs,
		change: func(a map[string]any) { set(a, "properties.scope", service+"/products/starter") }, want: "properties.scope"})

	ra := exampleOf(t, "authorization", "authorization/RoleAssignment")
	props := ra.Request["properties"].(map[string]any)
	raSpec := map[string]any{"owner": map[string]any{"armId": "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"},
		"roleDefinitionReference": map[string]any{"armId": props["roleDefinitionId"]}, "principalId": props["principalId"]}
	if pt, ok := props["principalType"]; ok {
		raSpec["principalType"] = pt
	}
	// The kind as the operator serves it: its overlay puts the role's ID in the body.
	roleAssignment := served(t, kinds.RoleAssignment{})
	cases = append(cases, answerCase{name: "role definition ID", kind: roleAssignment, body: bodyOf(t, roleAssignment, raSpec), answer: ra.Answer,
		change: func(a map[string]any) {
			set(a, "properties.roleDefinitionId", "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7")
		}, want: "properties.roleDefinitionId"})

	account := exampleOf(t, "cosmos", "documentdb/DatabaseAccount")
	cases = append(cases, answerCase{name: "Cosmos DB location names", kind: kinds.DatabaseAccount{}, body: bodyOf(t, kinds.DatabaseAccount{}, specOf(account.Request)), answer: account.Answer,
		change: func(a map[string]any) {
			a["properties"].(map[string]any)["locations"].([]any)[0].(map[string]any)["locationName"] = "East US"
		}, want: "properties.locations[0].locationName"})
	for _, c := range cases {
		c.check(t)
	}
}

// A value Azure forces: Key Vault keeps soft delete on. A spec turning it off
// is refused, in the CRD and before any write; otherwise Azure's answer
// matches.
func TestNormalizeForced(t *testing.T) {
	vault := exampleOf(t, "keyvault", "keyvault/Vault")
	spec := specOf(vault.Request)
	delete(spec, "networkAcls") // answered otherwise (an IP as a /32 range): not a class of the issue
	spec["enableSoftDelete"] = false
	_, err := reconcilers.DesiredForTest(kinds.Vault{}, objectOf(t, kinds.Vault{}, spec))
	if err == nil || !strings.Contains(err.Error(), "properties.enableSoftDelete is false") || !strings.Contains(err.Error(), "set it to true") {
		t.Errorf("a spec turning soft delete off: %v, want it refused naming the path and what to write", err)
	}
	answer := set(copyOf(t, vault.Answer), "properties.enableSoftDelete", true)
	for _, v := range []any{true, "-"} {
		body := bodyOf(t, kinds.Vault{}, set(copyOf(t, spec), "enableSoftDelete", v))
		if d := reconcilers.DifferencesForTest(kinds.Vault{}, body, answer); len(d) > 0 {
			t.Errorf("enableSoftDelete %v: differences %v, want none", v, d)
		}
	}
	crd, err := os.ReadFile(filepath.Join("..", "api", "crds", "keyvault.aztenant.io_vaults.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(crd), "rule: self == true") || !strings.Contains(string(crd), "Azure keeps enableSoftDelete true") {
		t.Error("the Vault CRD does not refuse enableSoftDelete: false")
	}
}

// Elements Azure adds to a set: a Container Apps environment's Consumption
// profile, Cosmos DB's /"_etag"/? excluded path.
func TestNormalizeAddedToSet(t *testing.T) {
	env := exampleOf(t, "appcontainers", "app/ManagedEnvironment")
	envSpec := specOf(env.Request)
	var declared []any
	for _, p := range envSpec["workloadProfiles"].([]any) {
		if p.(map[string]any)["workloadProfileType"] != "Consumption" {
			declared = append(declared, p)
		}
	}
	envSpec["workloadProfiles"] = declared
	for _, k := range []string{"appLogsConfiguration", "customDomainConfiguration", "daprAIConnectionString", "peerTrafficConfiguration"} {
		delete(envSpec, k) // write-only secrets inside, not this class
	}
	cases := []answerCase{{name: "Consumption profile", kind: kinds.ManagedEnvironment{}, body: bodyOf(t, kinds.ManagedEnvironment{}, envSpec), answer: env.Answer,
		change: func(a map[string]any) {
			a["properties"].(map[string]any)["workloadProfiles"].([]any)[0].(map[string]any)["maximumCount"] = 20
		}, want: "properties.workloadProfiles[name=My-GP-01].maximumCount"}}

	container := exampleOf(t, "cosmos", "documentdb/SqlDatabaseContainer")
	resource := map[string]any{"id": "containerName", "partitionKey": map[string]any{"kind": "Hash", "paths": []any{"/AccountNumber"}},
		"indexingPolicy": map[string]any{"automatic": true, "indexingMode": "consistent", "excludedPaths": []any{map[string]any{"path": "/private/*"}}}}
	answer := copyOf(t, container.Answer)
	set(answer, "properties.resource", map[string]any{"id": "containerName", "partitionKey": map[string]any{"kind": "Hash", "paths": []any{"/AccountNumber"}},
		"indexingPolicy": map[string]any{"automatic": true, "indexingMode": "consistent", "includedPaths": []any{map[string]any{"path": "/*"}},
			"excludedPaths": []any{map[string]any{"path": "/private/*"}, map[string]any{"path": `/"_etag"/?`}}},
		"_rid": "PD5DALigDgw=", "_ts": 1459200611})
	delete(answer, "location")
	cases = append(cases, answerCase{name: "Cosmos DB _etag excluded path", kind: kinds.SqlDatabaseContainer{},
		body: bodyOf(t, kinds.SqlDatabaseContainer{}, map[string]any{"owner": map[string]any{"name": "db"}, "location": "westus", "resource": resource}), answer: answer,
		change: func(a map[string]any) {
			set(a, "properties.resource.indexingPolicy.excludedPaths", []any{map[string]any{"path": "/private/*"}, map[string]any{"path": "/other/*"}, map[string]any{"path": `/"_etag"/?`}})
		}, want: "properties.resource.indexingPolicy.excludedPaths"})
	for _, c := range cases {
		c.check(t)
	}
}

// An enum Azure answers as an integer: a Mongo role definition's type.
func TestNormalizeIntEnum(t *testing.T) {
	ex := exampleOf(t, "cosmos", "documentdb/MongodbRoleDefinition")
	spec := specOf(ex.Request)
	spec["type"] = "CustomRole"
	body := bodyOf(t, kinds.MongodbRoleDefinition{}, spec)
	answer := set(copyOf(t, body), "properties.type", 1) // as the trial saw; the example answers "CustomRole"
	answerCase{name: "Mongo role type", kind: kinds.MongodbRoleDefinition{}, body: body, answer: answer,
		change: func(a map[string]any) { set(a, "properties.type", 0) }, want: "properties.type"}.check(t)
	if d := reconcilers.DifferencesForTest(kinds.MongodbRoleDefinition{}, body, set(copyOf(t, body), "properties.type", "CustomRole")); len(d) > 0 {
		t.Errorf("the type answered as a string: differences %v", d)
	}
}

// Every kind's facts about answers name entries of the table and paths its
// spec reaches: NewRegistry refuses the operator's start otherwise.
func TestNormalizeFactsOfEveryKind(t *testing.T) {
	with := 0
	for _, k := range kinds.All() {
		if err := reconcilers.CheckKindForTest(k); err != nil {
			t.Errorf("%T: %v", k, err)
		}
		f := k.Facts()
		if len(f.Normalize)+len(f.NotReturned)+len(f.Forced)+len(f.OpenValues) > 0 {
			with++
		}
	}
	if with < 20 {
		t.Errorf("%d kinds with facts about answers, want the 20 or more api/kinds.yaml and the role assignment give", with)
	}
}
