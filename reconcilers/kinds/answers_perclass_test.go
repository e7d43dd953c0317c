package kinds_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// answerCase is one class of issue 27 on one real kind: the sample it is created
// from (its parents by their own samples), how its spec is changed so that Azure's
// answer differs from it, what Azure does there, and the portal edit that must
// still be put back with one PUT.
type answerCase struct {
	name    string
	parents []string // sample files, parents first
	sample  string
	spec    func(spec map[string]any)
	answers []emulator.AnswerTransform
	// path is the class's path in the ARM body; edit is where the portal changes
	// the resource (the same path unless no value there differs from both the
	// spec and Azure's answer), to the value portal returns from the old one.
	path, edit string
	portal     func(old any) any
	// kept: no fact of the kind explains the answer, so status.azureKeeps must
	// list a path ending so.
	kept string
}

// answerCases are issue 27's classes, each with the emulator answering as its
// source says Azure does (emulator/README.md, "Azure's answers").
func answerCases() []answerCase {
	const (
		cosmos = "documentdb/databaseaccount.yaml"
		sqldb  = "documentdb/sqldatabase.yaml"
		apim   = "apimanagement/service.yaml"
		api    = "apimanagement/api.yaml"
	)
	raw := func(v string) json.RawMessage { return json.RawMessage(v) }
	return []answerCase{{
		name: "absent/SqlDatabase.options", parents: []string{cosmos}, sample: sqldb,
		answers: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: "properties.options", Op: emulator.OpDrop}},
		path:    "properties.options", edit: "properties.options",
		portal: func(any) any { return map[string]any{"throughput": 800} },
	}, {
		name: "absent/SqlDatabase.location", parents: []string{cosmos}, sample: sqldb,
		answers: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: "location", Op: emulator.OpDrop}},
		path:    "location", edit: "location",
		portal: func(any) any { return "northeurope" },
	}, {
		name: "rewritten/DatabaseAccount.locationName", sample: cosmos,
		answers: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "properties.locations[].locationName", Op: emulator.OpDisplayLocation}},
		path:    "properties.locations", edit: "properties.locations",
		portal: func(old any) any {
			l := clone(old).([]any)
			l[0].(map[string]any)["locationName"] = "North Europe"
			return l
		},
	}, {
		name: "rewritten/ApiPolicy.value", parents: []string{apim, api}, sample: "apimanagement/apipolicy.yaml",
		answers: []emulator.AnswerTransform{{Type: "Microsoft.ApiManagement/service/apis/policies", Path: "properties.value", Op: emulator.OpReformatXML}},
		path:    "properties.value", edit: "properties.value",
		portal: func(any) any {
			return "<policies>\r\n  <inbound>\r\n    <base />\r\n  </inbound>\r\n  <backend />\r\n  <outbound />\r\n</policies>"
		},
	}, {
		name: "rewritten/Api.path", parents: []string{apim}, sample: api,
		spec:    func(s map[string]any) { s["path"] = "/orders" },
		answers: []emulator.AnswerTransform{{Type: "Microsoft.ApiManagement/service/apis", Path: "properties.path", Op: emulator.OpTrimSlash}},
		path:    "properties.path", edit: "properties.path",
		portal: func(any) any { return "orders-v2" },
	}, {
		name: "rewritten/Subscription.scope", parents: []string{apim}, sample: "apimanagement/subscription.yaml",
		answers: []emulator.AnswerTransform{{Type: "Microsoft.ApiManagement/service/subscriptions", Path: "properties.scope", Op: emulator.OpExpandID}},
		path:    "properties.scope", edit: "properties.scope",
		portal: func(old any) any { return strings.TrimSuffix(old.(string), "/apis") + "/products/starter" },
	}, {
		// The answer is true whatever is sent: no value at the path differs from both the
		// spec (false) and the answer (true), so the portal edits a sibling value.
		name: "forced/Namespace.zoneRedundant", sample: "servicebus/namespace.yaml",
		spec:    func(s map[string]any) { s["zoneRedundant"] = false },
		answers: []emulator.AnswerTransform{{Type: "Microsoft.ServiceBus/namespaces", Path: "properties.zoneRedundant", Op: emulator.OpForce, Value: raw("true")}},
		path:    "properties.zoneRedundant", edit: "tags", kept: "zoneRedundant",
		portal: func(any) any { return map[string]any{"environment": "edited-in-portal"} },
	}, {
		name: "addedElement/ManagedEnvironment.workloadProfiles", sample: "app/managedenvironment.yaml",
		spec: func(s map[string]any) {
			s["workloadProfiles"] = []any{map[string]any{"name": "general", "workloadProfileType": "D4", "minimumCount": 1, "maximumCount": 3}}
		},
		answers: []emulator.AnswerTransform{{Type: "Microsoft.App/managedEnvironments", Path: "properties.workloadProfiles", Op: emulator.OpAddElement,
			Value: raw(`{"name":"Consumption","workloadProfileType":"Consumption"}`)}},
		path: "properties.workloadProfiles", edit: "properties.workloadProfiles",
		portal: func(old any) any {
			l := clone(old).([]any)
			for _, p := range l {
				if p.(map[string]any)["name"] == "general" {
					p.(map[string]any)["maximumCount"] = 5
				}
			}
			return l
		},
	}, {
		name: "addedElement/SqlDatabaseContainer.excludedPaths", parents: []string{cosmos, sqldb}, sample: "documentdb/sqldatabasecontainer.yaml",
		spec: func(s map[string]any) {
			s["resource"].(map[string]any)["indexingPolicy"] = map[string]any{
				"indexingMode": "consistent", "excludedPaths": []any{map[string]any{"path": "/blob/*"}}}
		},
		answers: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers", Path: "properties.resource.indexingPolicy.excludedPaths",
			Op: emulator.OpAddElement, Value: raw(`{"path":"/\"_etag\"/?"}`)}},
		path: "properties.resource.indexingPolicy.excludedPaths", edit: "properties.resource.indexingPolicy",
		portal: func(old any) any {
			p := clone(old).(map[string]any)
			p["excludedPaths"] = []any{map[string]any{"path": "/other/*"}, map[string]any{"path": `/"_etag"/?`}}
			return p
		},
	}, {
		name: "integerEnum/MongodbRoleDefinition.type", parents: []string{cosmos}, sample: "documentdb/mongodbroledefinition.yaml",
		answers: []emulator.AnswerTransform{{Type: "Microsoft.DocumentDB/databaseAccounts/mongodbRoleDefinitions", Path: "properties.type", Op: emulator.OpIntEnum,
			Enum: []string{"BuiltInRole", "CustomRole"}}},
		path: "properties.type", edit: "properties.type",
		portal: func(any) any { return 0 },
	}}
}

// Issue 27, item 1 "test it on each class above": for every class of Azure's
// answers, on the real kind it was seen on, with the emulator answering that
// way from before the create: Ready, then three syncs with no PUT, then a portal
// edit at the class's path put back with exactly one PUT, then steady again.
func TestAnswersKeptPerClass(t *testing.T) {
	t.Parallel()
	const ns, rg = "perclass", "perclass-rg"
	s := newStackOf(t, "*", ns) // the cases' kinds and their parents
	ctx := t.Context()
	allowLocations(t, s, ns, "northeurope")
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	must(t, s.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sample-admin-password"},
		StringData: map[string]string{"password": "first-Passw0rd!"}}))

	cases := answerCases()
	var all []emulator.AnswerTransform
	for _, c := range cases {
		all = append(all, c.answers...)
	}
	// Every transform from the start: a parent created by an earlier case answers
	// as Azure does too.
	s.SetAnswers(t, all...)

	// The cases' parents first, each once (cases share them); then the cases side by
	// side: each counts the PUTs and reads of its own resource only.
	created := map[string]bool{}
	for _, c := range cases {
		for _, file := range c.parents {
			if created[file] {
				continue
			}
			o := loadSample(t, s, file, ns, rg, "", nil)
			s.Create(t, o)
			s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
			created[file] = true
		}
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			defer func() { t.Logf("%s: %s", c.name, time.Since(start).Round(100*time.Millisecond)) }()
			// Named apart from the sample of the same kind, which may be a parent.
			o := loadSample(t, s, c.sample, ns, rg, fmt.Sprintf("pc%d-", i), c.spec)
			o.SetAnnotations(map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
			kind := reflect.TypeOf(o).Elem().Name()
			s.Create(t, o)
			s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
			id := o.AzureStatus().ID
			suffix := strings.ToLower(id[strings.Index(id, "/providers/"):])
			puts := func() int { return strings.Count(methods(s.ARMCalls(suffix)), "PUT") }
			syncs := func(what string, n int) {
				t.Helper()
				reads := s.Reads(id)
				until(t, kind+": "+what, func() bool { return s.Reads(id) >= reads+n })
			}
			if n := puts(); n != 1 {
				t.Fatalf("%s %s: %d PUTs for the create, want 1", kind, c.path, n)
			}
			answered := s.AzureBody(t, id)
			if reflect.DeepEqual(lookup(answered, strings.Split(c.path, ".")), specValue(t, o, c.path)) {
				t.Fatalf("%s %s: Azure answered %v, the spec's value: the transform did not apply", kind, c.path, lookup(answered, strings.Split(c.path, ".")))
			}

			must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
			t.Logf("%s: status.azureKeeps %s", kind, js(o.AzureStatus().AzureKeeps))
			if c.kept != "" && !keeps(o, c.kept) {
				t.Errorf("%s %s: Azure answered %s, and status.azureKeeps does not list it: %s",
					kind, c.path, js(lookup(answered, strings.Split(c.path, "."))), js(o.AzureStatus().AzureKeeps))
			}
			syncs("three syncs after the create", 3)
			if n := puts(); n != 1 {
				t.Fatalf("%s %s: %d PUTs after the create and three syncs, want 1 (Azure answered %s=%s; status.azureKeeps %s)",
					kind, c.path, n, c.path, js(lookup(answered, strings.Split(c.path, "."))), js(o.AzureStatus().AzureKeeps))
			}

			// The portal changes the resource: drift, put back with one PUT.
			keys := strings.Split(c.edit, ".")
			patch := any(c.portal(lookup(answered, keys)))
			for i := len(keys) - 1; i >= 0; i-- {
				patch = map[string]any{keys[i]: patch}
			}
			data, _ := json.Marshal(patch)
			_, err := s.Emu.PatchResource(ctx, id, data)
			must(t, err)
			until(t, kind+": the portal edit at "+c.edit+" put back", func() bool { return puts() >= 2 })
			syncs("three syncs after the put-back", 3)
			if n := puts(); n != 2 {
				t.Errorf("%s %s: %d PUTs after a portal edit at %s and three syncs, want exactly 2 (the create's and one put-back)", kind, c.path, n, c.edit)
			}
			after := s.AzureBody(t, id)
			for _, p := range []string{c.path, c.edit} {
				if got, want := lookup(after, strings.Split(p, ".")), lookup(answered, strings.Split(p, ".")); !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: after the put-back Azure has %s, want its first answer %s", kind, p, js(got), js(want))
				}
			}
			must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
			if !readyTrue(o) {
				t.Errorf("%s %s: not Ready after the put-back: %+v", kind, c.path, o.AzureStatus().Conditions)
			}
			if c.kept != "" && !keeps(o, c.kept) {
				t.Errorf("%s %s: status.azureKeeps lost it after the put-back: %s", kind, c.path, js(o.AzureStatus().AzureKeeps))
			}
		})
	}
}

// allowLocations adds locations to the namespace's Tenant.
func allowLocations(t *testing.T, s *stack, ns string, locations ...string) {
	t.Helper()
	var tn tenancyv1alpha1.Tenant
	must(t, s.Client.Get(t.Context(), client.ObjectKey{Name: ns}, &tn))
	base := tn.DeepCopy()
	for _, l := range locations {
		tn.Spec.Locations = append(tn.Spec.Locations, azurev1alpha1.Location(l))
	}
	must(t, s.Client.Patch(t.Context(), &tn, client.MergeFrom(base)))
}

// loadSample reads one sample of examples/generated into namespace ns, its
// top-level owner renamed to rg, its name prefixed, with edit applied to its
// spec. Secret exports are left out (two objects of a sample would export to the
// same Secret).
func loadSample(t *testing.T, s *stack, file, ns, rg, prefix string, edit func(map[string]any)) azurev1alpha1.Resource {
	t.Helper()
	data, err := os.ReadFile("../../examples/generated/" + file)
	must(t, err)
	data = intoTenant(data, ns, rg)
	var tm metav1.TypeMeta
	must(t, yaml.Unmarshal(data, &tm))
	var kind reconcilers.Kind
	for _, k := range kinds.Generated() {
		gvks, _, err := s.Env.Scheme.ObjectKinds(k.New())
		must(t, err)
		if gvks[0].GroupKind() == (schema.GroupKind{Group: tm.GroupVersionKind().Group, Kind: tm.Kind}) {
			kind = k
		}
	}
	if kind == nil {
		t.Fatalf("%s: not a generated kind", file)
	}
	var m map[string]any
	must(t, yaml.Unmarshal(data, &m))
	// The API's version set is another sample, not needed here.
	spec := m["spec"].(map[string]any)
	delete(spec, "apiVersionSetReference")
	delete(spec, "operatorSpec")
	meta := m["metadata"].(map[string]any)
	meta["name"] = prefix + meta["name"].(string)
	if r, ok := spec["resource"].(map[string]any); ok && r["id"] != nil {
		r["id"] = meta["name"] // Cosmos DB: the resource's id is its name
	}
	if edit != nil {
		edit(m["spec"].(map[string]any))
	}
	data, err = json.Marshal(m)
	must(t, err)
	obj := kind.New()
	must(t, yaml.UnmarshalStrict(data, obj))
	obj.SetNamespace(ns)
	if o := obj.Owner(); o != nil && o.Name == "sample-rg" {
		o.Name = rg
	}
	return obj
}

// specValue is the value the spec sends at an ARM path (properties.x is the
// spec's x), as JSON decodes it.
func specValue(t *testing.T, obj azurev1alpha1.Resource, path string) any {
	t.Helper()
	data, err := json.Marshal(obj)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(data, &m))
	return lookup(m["spec"].(map[string]any), strings.Split(strings.TrimPrefix(path, "properties."), "."))
}

// keeps reports whether obj's record lists a path ending with suffix.
func keeps(obj azurev1alpha1.Resource, suffix string) bool {
	if k := obj.AzureStatus().AzureKeeps; k != nil {
		for _, p := range k.Paths {
			if strings.HasSuffix(p.Path, suffix) {
				return true
			}
		}
	}
	return false
}

// clone is a deep copy of a decoded JSON value.
func clone(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// js prints a decoded JSON value for a message.
func js(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
