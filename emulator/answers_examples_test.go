package emulator_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

const vaultAPI = "2024-11-01"

// vaultBody is a Key Vault vault as a user writes it: values of its own where the
// examples have others (enabledForDeployment false, a standard SKU of family A).
func vaultBody() armresources.GenericResource {
	return armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{
		"tenantId": tenantID, "sku": map[string]any{"family": "A", "name": "premium"},
		"enabledForDeployment": false,
		"accessPolicies": []any{map[string]any{"tenantId": tenantID, "objectId": "11111111-2222-3333-4444-555555555555",
			"permissions": map[string]any{"keys": []any{"get"}, "secrets": []any{"get", "list"}}}},
	}}
}

// A Key Vault vault is answered from its request plus the defaults Azure's examples
// document (createVault.json and createVaultWithNetworkAcls.json at 2024-11-01): vaultUri
// and networkAcls added, its own values and access policies kept as sent, through the
// write's answer, GET and the list. Off, the same write is echoed.
func TestAnswersFromExamplesKeyVault(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.AnswerFromExamples = true })
	cred := f.platformCred(t)
	f.createGroup(t, cred, "kv")
	id := rgScope + "kv/providers/Microsoft.KeyVault/vaults/kv1"
	sent := asMap(t, vaultBody())["properties"].(map[string]any)
	f.answersOf(t, cred, id, vaultAPI, vaultBody()).each(t, func(how string, b map[string]any) {
		p, _ := b["properties"].(map[string]any)
		if p["vaultUri"] != "https://sample-vault.vault.azure.net" {
			t.Errorf("%s: vaultUri %v, want the example's default", how, p["vaultUri"])
		}
		if dig(p, "networkAcls", "bypass") != "AzureServices" {
			t.Errorf("%s: networkAcls %v, want createVault.json's", how, p["networkAcls"])
		}
		for _, k := range []string{"tenantId", "sku", "enabledForDeployment", "accessPolicies"} {
			if !reflect.DeepEqual(p[k], sent[k]) {
				t.Errorf("%s: %s is %v, want it as sent: %v", how, k, p[k], sent[k])
			}
		}
		if p["provisioningState"] != "Succeeded" || b["location"] != "westeurope" {
			t.Errorf("%s: provisioningState %v, location %v", how, p["provisioningState"], b["location"])
		}
	})

	// A value the user sends where the example has a default is the user's.
	mine := vaultBody()
	mine.Properties.(map[string]any)["vaultUri"] = "https://kv1.vault.azure.net/"
	f.answersOf(t, cred, id, vaultAPI, mine).each(t, func(how string, b map[string]any) {
		if got := dig(b, "properties", "vaultUri"); got != "https://kv1.vault.azure.net/" {
			t.Errorf("%s: vaultUri %v, want the one sent", how, got)
		}
	})

	// A single address of the network rules is answered as its range, a range as sent
	// (createVaultWithNetworkAcls.json).
	acl := vaultBody()
	acl.Properties.(map[string]any)["networkAcls"] = map[string]any{"defaultAction": "Deny", "bypass": "AzureServices",
		"ipRules": []any{map[string]any{"value": "124.56.78.91"}, map[string]any{"value": "10.91.4.0/24"}}}
	f.answersOf(t, cred, rgScope+"kv/providers/Microsoft.KeyVault/vaults/kv3", vaultAPI, acl).each(t, func(how string, b map[string]any) {
		if got := dig(b, "properties", "networkAcls", "ipRules"); !reflect.DeepEqual(got, []any{map[string]any{"value": "124.56.78.91/32"}, map[string]any{"value": "10.91.4.0/24"}}) {
			t.Errorf("%s: ipRules %v, want the address as its /32 range and the range as sent", how, got)
		}
	})

	f.emu.SetAnswerFromExamples(false)
	echo := f.answersOf(t, cred, rgScope+"kv/providers/Microsoft.KeyVault/vaults/kv2", vaultAPI, vaultBody())
	if has(echo.get, "properties", "vaultUri") || has(echo.get, "properties", "networkAcls") {
		t.Errorf("with answers from examples off, the vault is not an echo: %v", echo.get["properties"])
	}
}

// A Cosmos DB SQL database is answered without its create options (write-only: the
// SDK's "corresponds to the headers sent with the request", and
// CosmosDBSqlDatabaseCreateUpdate.json answers none), its resource as sent.
func TestAnswersFromExamplesCosmosOptionsDropped(t *testing.T) {
	f := newFixture(t)
	f.emu.SetAnswerFromExamples(true)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "cosmos")
	account := rgScope + "cosmos/providers/Microsoft.DocumentDB/databaseAccounts/ddb1"
	res := f.resources(t, cred)
	if _, err := put(t, res, account, cosmosAPI, armresources.GenericResource{Location: to.Ptr("westus"),
		Properties: map[string]any{"databaseAccountOfferType": "Standard",
			"locations": []any{map[string]any{"locationName": "southcentralus", "failoverPriority": 0}}}}); err != nil {
		t.Fatal(err)
	}
	// The account takes the cited display-name rewrites its example shows.
	got, err := res.GetByID(ctxT(t), account, cosmosAPI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := asMap(t, got.GenericResource); b["location"] != "West US" || dig(b, "properties", "locations", 0, "locationName") != "South Central US" {
		t.Errorf("the account: location %v, locations %v; want the display names CosmosDBDatabaseAccountCreateMin.json answers",
			b["location"], dig(b, "properties", "locations"))
	}
	db := f.answersOf(t, cred, account+"/sqlDatabases/db1", cosmosAPI, armresources.GenericResource{
		Properties: map[string]any{"resource": map[string]any{"id": "db1"}, "options": map[string]any{"throughput": 400}}})
	db.each(t, func(how string, b map[string]any) {
		if has(b, "properties", "options") {
			t.Errorf("%s: properties.options %v answered", how, dig(b, "properties", "options"))
		}
		if dig(b, "properties", "resource", "id") != "db1" {
			t.Errorf("%s: resource %v, want it as sent", how, dig(b, "properties", "resource"))
		}
	})
}

// Kinds without an answer documented echo their writes with answers from examples on,
// while a kind with one does not: an App Service host name binding has no PUT example,
// Event Grid topics' examples document no answer body.
func TestAnswersFromExamplesWithoutExampleEcho(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "noex")
	rg := rgScope + "noex/providers/"
	res := f.resources(t, cred)
	site := rg + "Microsoft.Web/sites/app1"
	if _, err := put(t, res, site, "2024-11-01", armresources.GenericResource{Location: to.Ptr("westeurope"),
		Properties: map[string]any{"serverFarmId": rg + "Microsoft.Web/serverfarms/plan1"}}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		id, api string
		body    armresources.GenericResource
	}{
		{site + "/hostNameBindings/www.contoso.example", "2024-11-01", armresources.GenericResource{
			Properties: map[string]any{"siteName": "app1", "hostNameType": "Verified", "sslState": "Disabled"}}},
		{rg + "Microsoft.EventGrid/topics/topic1", "2022-06-15", armresources.GenericResource{Location: to.Ptr("westeurope"),
			Properties: map[string]any{"inputSchema": "EventGridSchema"}}},
	} {
		f.emu.SetAnswerFromExamples(false)
		echo := f.answersOf(t, cred, w.id, w.api, w.body)
		f.emu.SetAnswerFromExamples(true)
		got := f.answersOf(t, cred, w.id, w.api, w.body)
		for how, pair := range map[string][2]map[string]any{"the write's answer": {echo.put, got.put}, "GET": {echo.get, got.get}, "the list": {echo.list, got.list}} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("%s of %s is not the echo:\necho %v\ngot  %v", how, w.id, pair[0], pair[1])
			}
		}
	}
	kv := f.answersOf(t, cred, rg+"Microsoft.KeyVault/vaults/kv1", vaultAPI, vaultBody())
	if !has(kv.get, "properties", "vaultUri") {
		t.Errorf("a vault with answers from examples on is an echo: %v", kv.get["properties"])
	}
}

// ExampleAnswers says per kind what the answers are built from, by the rules: documented
// defaults without the examples' own IDs, write-only drops confirmed by a secret or a
// cited source, reported drops and unexplained rewrites never applied.
func TestExampleAnswersPerKind(t *testing.T) {
	all, err := emulator.ExampleAnswers()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]emulator.ExampleAnswer{}
	count := map[string]int{}
	for _, x := range all {
		by[x.Kind] = x
		count[x.Answers]++
		for _, d := range x.Defaults {
			if strings.HasPrefix(d, "tags.") || strings.HasSuffix(d, "]") {
				t.Errorf("%s adds %s: tags and list elements are not defaults", x.Kind, d)
			}
		}
	}
	if len(all) != 325 || count["example"]+count["echo"] != 319 || count["behaviour"] != 6 {
		// Resource groups, storage accounts, Redis caches, PostgreSQL flexible servers, AKS
		// clusters and role assignments are generated kinds but answered by the emulator's
		// own behaviours (arm.go, ownAnswers).
		t.Errorf("%d kinds, answers %v; want 325 (319 from examples or echoed, 6 by a behaviour of their own: resource groups, storage accounts, Redis caches, PostgreSQL flexible servers, AKS clusters and role assignments)", len(all), count)
	}
	mustHave := func(kind, what string, list []string, want string) {
		t.Helper()
		if !slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("%s %s %v, want %s", kind, what, list, want)
		}
	}
	vault := by["keyvault/Vault"]
	mustHave("keyvault/Vault", "defaults", vault.Defaults, "properties.vaultUri")
	mustHave("documentdb/SqlDatabase", "drops", by["documentdb/SqlDatabase"].Drops, "properties.options (write-only: armcosmos")
	mustHave("compute/VirtualMachine", "drops", by["compute/VirtualMachine"].Drops, "properties.osProfile.adminPassword (write-only: every example")
	mustHave("apimanagement/ApiPolicy", "reported drops", by["apimanagement/ApiPolicy"].ReportedDrops, "properties.format")
	mustHave("apimanagement/ApiPolicy", "cited rewrites", by["apimanagement/ApiPolicy"].CitedRewrites, "properties.value (reformatXML)")
	mustHave("keyvault/Vault", "cited rewrites", vault.CitedRewrites, "properties.networkAcls.ipRules[0].value (cidr)")
	for _, k := range []string{"web/SitesHostNameBinding", "eventgrid/Topic"} {
		if by[k].Answers != "echo" {
			t.Errorf("%s answers %q, want echo", k, by[k].Answers)
		}
	}
	for _, d := range by["network/PrivateEndpoint"].Defaults {
		if strings.Contains(d, "manualPrivateLinkServiceConnections[0].id") {
			t.Errorf("network/PrivateEndpoint adds the example's own ID at %s", d)
		}
	}
	if x := by["storage/StorageAccount"]; x.Answers != "behaviour" || len(x.Defaults) != 0 {
		t.Errorf("storage/StorageAccount: %+v, want its own behaviour", x)
	}
}

// perturbTarget is a generated kind's resource and body for the perturbation tests: a
// Key Vault vault, which has a place for most of Perturb's operations.
func perturbTarget() armresources.GenericResource {
	b := vaultBody()
	p := b.Properties.(map[string]any)
	p["enableRbacAuthorization"] = false
	p["publicNetworkAccess"] = "Enabled"
	p["networkAcls"] = map[string]any{"bypass": "AzureServices", "defaultAction": "Allow",
		"ipRules": []any{map[string]any{"value": "10.0.0.0/24"}}}
	return b
}

// strip is a body without what names one resource (id, name).
func strip(m map[string]any) map[string]any {
	m = cloneMap(m)
	delete(m, "id")
	delete(m, "name")
	return m
}

// Perturbing every write answers a generated kind's writes through Perturb's transforms
// for its type and first body: the same spec is answered the same (written again, to
// another resource, or after the resource was deleted), and writing the perturbed answer
// back, or a PATCH of it, changes nothing, although Perturb would pick other transforms
// for the answer's body. Writes of other types are not perturbed.
func TestAnswersPerturbEveryWriteDeterministicAndIdempotent(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.PerturbWrites = &emulator.PerturbWrites{Seed: 11} })
	cred := f.platformCred(t)
	f.createGroup(t, cred, "pw")
	rg := rgScope + "pw/providers/Microsoft.KeyVault/vaults/"
	res := f.resources(t, cred)
	body := perturbTarget()

	first := f.answersOf(t, cred, rg+"a", vaultAPI, body)
	sent := asMap(t, body)
	if reflect.DeepEqual(first.get["properties"], mergedState(sent)["properties"]) && first.get["location"] == sent["location"] {
		t.Fatalf("the write was not perturbed: %v", first.get)
	}
	answer := strip(first.get)
	// GET and the list: a change after Succeeded shows from the first read on (the
	// write's own answer of a new resource has the value sent).
	same := func(what string, got answerReads) {
		t.Helper()
		for how, b := range map[string]map[string]any{"GET": got.get, "the list": got.list} {
			if !reflect.DeepEqual(strip(b), answer) {
				t.Errorf("%s, %s:\n got  %v\n want %v", what, how, strip(b), answer)
			}
		}
	}
	same("the same spec again", f.answersOf(t, cred, rg+"a", vaultAPI, body))
	same("the same spec to another vault", f.answersOf(t, cred, rg+"b", vaultAPI, body))

	// The answer written back: Perturb would pick otherwise for its body.
	back := asMap(t, first.get)
	delete(back, "id")
	delete(back, "name")
	delete(back, "type")
	raw, _ := json.Marshal(back)
	sentRaw, _ := json.Marshal(sent)
	again, _ := emulator.Perturb(11, "Microsoft.KeyVault/vaults", raw)
	orig, _ := emulator.Perturb(11, "Microsoft.KeyVault/vaults", sentRaw)
	if reflect.DeepEqual(again, orig) {
		t.Fatalf("Perturb picks the same for the answer as for the spec, so this test proves nothing: %v", orig)
	}
	// The emulator says which transforms answer the resource, in Go and through the
	// Control API: those Perturb picks for the body first written.
	if picked, err := f.emu.Perturbations(rg + "a"); err != nil || len(picked) == 0 || !reflect.DeepEqual(picked, orig) {
		t.Errorf("Perturbations: %v, %v; want Perturb's pick for the body written, %v", picked, err, orig)
	}
	if status, body := controlCall(t, f, "GET", "/perturb"+rg+"a", ""); status != 200 || !strings.Contains(body, `"path":"`+orig[0].Path+`"`) {
		t.Errorf("GET /perturb/{id}: %d %s", status, body)
	}
	if status, _ := controlCall(t, f, "GET", "/perturb"+rg+"none", ""); status != 404 {
		t.Errorf("GET /perturb/{id} of no resource: %d, want 404", status)
	}
	var backBody armresources.GenericResource
	if err := json.Unmarshal(raw, &backBody); err != nil {
		t.Fatal(err)
	}
	same("the answer written back", f.answersOf(t, cred, rg+"a", vaultAPI, backBody))

	// A PATCH (tags only) keeps the answer and adds the tag.
	p, err := res.BeginUpdateByID(ctxT(t), rg+"a", vaultAPI, armresources.GenericResource{Tags: map[string]*string{"team": to.Ptr("a")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := p.PollUntilDone(ctxT(t), fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	pb := strip(asMap(t, patched.GenericResource))
	if dig(pb, "tags", "team") != "a" {
		t.Errorf("PATCH: tags %v", pb["tags"])
	}
	delete(pb, "tags")
	want := cloneMap(answer)
	delete(want, "tags")
	if !reflect.DeepEqual(pb, want) {
		t.Errorf("PATCH changed the answer:\n got  %v\n want %v", pb, want)
	}

	// Deleted and created again with the same spec: the same answer.
	if err := del(t, res, rg+"a", vaultAPI); err != nil {
		t.Fatal(err)
	}
	same("created again", f.answersOf(t, cred, rg+"a", vaultAPI, body))

	// Another seed answers otherwise; off, the write is echoed. A type kindgen does not
	// write is never perturbed.
	if err := f.emu.SetPerturbWrites(&emulator.PerturbWrites{Seed: 12}); err != nil {
		t.Fatal(err)
	}
	other := f.answersOf(t, cred, rg+"c", vaultAPI, body)
	if reflect.DeepEqual(strip(other.get), answer) {
		t.Errorf("seed 12 answers as seed 11 did: %v", other.get)
	}
	widget := armresources.GenericResource{Location: to.Ptr("westus"), Properties: map[string]any{"enabled": true, "tier": "Standard"}}
	w := f.answersOf(t, cred, rgScope+"pw/providers/"+widgetsType+"/w", "2024-01-01", widget)
	if dig(w.get, "properties", "enabled") != true || dig(w.get, "properties", "tier") != "Standard" || w.get["location"] != "westus" {
		t.Errorf("a type kindgen does not write was perturbed: %v", w.get)
	}
	// Named in Types, it is (as a hand-written kind's type would be).
	if err := f.emu.SetPerturbWrites(&emulator.PerturbWrites{Seed: 12, Types: []string{strings.ToLower(widgetsType)}}); err != nil {
		t.Fatal(err)
	}
	w2id := rgScope + "pw/providers/" + widgetsType + "/w2"
	w2 := f.answersOf(t, cred, w2id, "2024-01-01", widget)
	if picked, _ := f.emu.Perturbations(w2id); len(picked) == 0 || reflect.DeepEqual(strip(w2.get)["properties"], strip(w.get)["properties"]) && w2.get["location"] == w.get["location"] {
		t.Errorf("a type named in Types was not perturbed: %v (transforms %v)", w2.get, picked)
	}
	if err := f.emu.SetPerturbWrites(&emulator.PerturbWrites{Types: []string{"widgets"}}); err == nil || !strings.Contains(err.Error(), "widgets") {
		t.Errorf("a type that is not an ARM type: %v", err)
	}
	if err := f.emu.SetPerturbWrites(nil); err != nil {
		t.Fatal(err)
	}
	plain := f.answersOf(t, cred, rg+"d", vaultAPI, body)
	if got := dig(plain.get, "properties", "enableRbacAuthorization"); got != false || plain.get["location"] != "westeurope" ||
		!reflect.DeepEqual(dig(plain.get, "properties", "networkAcls"), dig(sent, "properties", "networkAcls")) {
		t.Errorf("with perturbation off, the write is not an echo: %v", plain.get)
	}
}

// mergedState is the echo the emulator would store for a body: what was sent, with
// provisioningState Succeeded.
func mergedState(sent map[string]any) map[string]any {
	out := cloneMap(sent)
	p := cloneMap(sent["properties"].(map[string]any))
	p["provisioningState"] = "Succeeded"
	out["properties"] = p
	return out
}

// Both switches through the Control API, refused when malformed, and back to Config's
// after Reset.
func TestAnswersSwitchesControlAPI(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.PerturbWrites = &emulator.PerturbWrites{Seed: 3} })
	call := func(method, path, body string) (int, string) {
		t.Helper()
		return controlCall(t, f, method, path, body)
	}
	if status, body := call("PUT", "/examples", `{"enabled":true}`); status != 200 || !strings.Contains(body, `"enabled":true`) || !f.emu.AnswerFromExamples() {
		t.Errorf("PUT /examples: %d %s", status, body)
	}
	if status, body := call("PUT", "/examples", `{}`); status != 400 || !strings.Contains(body, "enabled") {
		t.Errorf("PUT /examples {}: %d %s, want 400", status, body)
	}
	if status, body := call("PUT", "/perturb", `{"seed":9,"ops":["case","drop"]}`); status != 200 || !strings.Contains(body, `"seed":9`) {
		t.Errorf("PUT /perturb: %d %s", status, body)
	}
	if status, body := call("PUT", "/perturb", `{"seed":9,"ops":["shuffle"]}`); status != 400 || !strings.Contains(body, "shuffle") {
		t.Errorf("PUT /perturb with an unknown op: %d %s, want 400", status, body)
	}
	if p := f.emu.PerturbWrites(); p == nil || p.Seed != 9 || len(p.Ops) != 2 {
		t.Errorf("after a refused PUT: %+v, want seed 9 still", p)
	}
	if status, _ := call("DELETE", "/perturb", ""); status != 204 || f.emu.PerturbWrites() != nil {
		t.Errorf("DELETE /perturb: %d, %+v", status, f.emu.PerturbWrites())
	}
	if status, body := call("GET", "/perturb", ""); status != 200 || strings.TrimSpace(body) != "null" {
		t.Errorf("GET /perturb when off: %d %s", status, body)
	}
	if err := f.emu.Reset(); err != nil {
		t.Fatal(err)
	}
	if p := f.emu.PerturbWrites(); p == nil || p.Seed != 3 || f.emu.AnswerFromExamples() {
		t.Errorf("after Reset: perturb %+v, examples %v; want Config's", p, f.emu.AnswerFromExamples())
	}
	if _, err := emulator.New(emulator.Config{PerturbWrites: &emulator.PerturbWrites{Ops: []emulator.AnswerOp{"nope"}}}); err == nil ||
		!strings.Contains(err.Error(), "perturbWrites") {
		t.Errorf("New with an unknown op: %v", err)
	}
}

// controlCall calls the Control API at /_emulator{path}.
func controlCall(t *testing.T, f *fixture, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), method, f.emu.URL()+"/_emulator"+path, strings.NewReader(body))
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

// A resource group perturbed to answer its location by display name is written again
// with its name, as ARM takes both.
func TestAnswersPerturbedResourceGroupWrittenAgain(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) {
		c.PerturbWrites = &emulator.PerturbWrites{Seed: 1, Ops: []emulator.AnswerOp{emulator.OpDisplayLocation}, Types: []string{"Microsoft.Resources/resourceGroups"}}
	})
	cred := f.platformCred(t)
	f.createGroup(t, cred, "again")
	f.createGroup(t, cred, "again")
	body, err := f.emu.ResourceBody(rgScope + "again")
	if err != nil {
		t.Fatal(err)
	}
	if body["location"] != "West Europe" {
		t.Errorf("location %v, want the display name West Europe", body["location"])
	}
}

// SentBody is what the client sent, where the answer is not its echo.
func TestSentBodyIsTheRequestNotTheAnswer(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) {
		c.PerturbWrites = &emulator.PerturbWrites{Seed: 1, Ops: []emulator.AnswerOp{emulator.OpDisplayLocation}, Types: []string{"Microsoft.Resources/resourceGroups"}}
	})
	cred := f.platformCred(t)
	f.createGroup(t, cred, "sent")
	answer, err := f.emu.ResourceBody(rgScope + "sent")
	if err != nil {
		t.Fatal(err)
	}
	sent, err := f.emu.SentBody(rgScope + "sent")
	if err != nil {
		t.Fatal(err)
	}
	if answer["location"] != "West Europe" || sent["location"] != "westeurope" {
		t.Errorf("answered location %v, sent %v; want West Europe answered for westeurope sent", answer["location"], sent["location"])
	}
	if _, err := f.emu.SentBody(rgScope + "none"); !errors.Is(err, emulator.ErrNotFound) {
		t.Errorf("SentBody of a missing group: %v, want ErrNotFound", err)
	}
}

// Azure SQL answers a vCore SKU by its name <edition>_<family>, the capacity apart,
// however the request spelled it (CreateVCoreDatabaseByServiceObjective.json,
// HyperscaleElasticPoolCreateOrUpdateSetHighAvailabilityReplicaCount.json); a DTU SKU
// and a full name are answered as sent.
func TestAnswersFromExamplesSQLSkuNames(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.AnswerFromExamples = true })
	cred := f.platformCred(t)
	f.createGroup(t, cred, "sql")
	server := rgScope + "sql/providers/Microsoft.Sql/servers/sql1"
	res := f.resources(t, cred)
	if _, err := put(t, res, server, "2021-02-01-preview", armresources.GenericResource{Location: to.Ptr("westeurope"),
		Properties: map[string]any{"administratorLogin": "admin", "administratorLoginPassword": "p@ssw0rd!Long"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, api string
		sent    map[string]any
		want    map[string]any
	}{
		{"/databases/bc", "2021-05-01-preview", map[string]any{"name": "BC", "family": "Gen4", "capacity": 2},
			map[string]any{"name": "BC_Gen4", "family": "Gen4", "capacity": float64(2), "tier": "BusinessCritical"}},
		{"/databases/gp", "2021-05-01-preview", map[string]any{"name": "GP_Gen5", "capacity": 2},
			map[string]any{"name": "GP_Gen5", "family": "Gen5", "capacity": float64(2), "tier": "GeneralPurpose"}},
		{"/databases/s0", "2021-05-01-preview", map[string]any{"name": "S0", "tier": "Standard"},
			map[string]any{"name": "S0", "tier": "Standard"}},
		{"/elasticPools/hs", "2021-08-01-preview", map[string]any{"name": "HS_Gen5_4"},
			map[string]any{"name": "HS_Gen5", "family": "Gen5", "capacity": float64(4), "tier": "Hyperscale"}},
	} {
		f.answersOf(t, cred, server+c.id, c.api, armresources.GenericResource{Location: to.Ptr("westeurope"), SKU: skuOf(t, c.sent)}).
			each(t, func(how string, b map[string]any) {
				got, _ := b["sku"].(map[string]any)
				for k, want := range c.want {
					if got[k] != want {
						t.Errorf("%s %s: sku %v, want %s %v", c.id, how, got, k, want)
					}
				}
			})
	}
}

func skuOf(t *testing.T, m map[string]any) *armresources.SKU {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var s armresources.SKU
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
