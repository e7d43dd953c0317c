package azimport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// answer is one of testdata/answers: a body Azure answers for a resource of
// an ARM type, and where it comes from.
type answer struct {
	file   string
	Source string          `json:"source"`
	Type   string          `json:"type"`
	Body   json.RawMessage `json:"body"`
}

// answers are testdata/answers: bodies of Azure's response examples at the
// pinned api-versions (each file names its example), and hand-written shapes
// Azure also gives (nulls, numbers as strings, an enum as an integer).
func answers(tb testing.TB) []answer {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "answers", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no testdata/answers: %v", err)
	}
	var out []answer
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		a := answer{file: filepath.Base(f)}
		if err := json.Unmarshal(raw, &a); err != nil || a.Type == "" || a.Source == "" || len(a.Body) == 0 {
			tb.Fatalf("%s: want source, type and body: %v", f, err)
		}
		out = append(out, a)
	}
	return out
}

// newImporter is an Importer of every kind aztenant has, reading Azure
// through client (nil: none, for the fuzz target that reads no Azure).
func newImporter(tb testing.TB, client *arm.Client) *Importer {
	tb.Helper()
	scheme := kruntime.NewScheme()
	if err := api.AddToScheme(scheme); err != nil {
		tb.Fatal(err)
	}
	reg, err := reconcilers.NewRegistry(scheme, kinds.All()...)
	if err != nil {
		tb.Fatal(err)
	}
	im := &Importer{Client: client, Registry: reg, Scheme: scheme, Namespace: "imp"}
	im.init()
	return im
}

type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "t", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// fakeARM answers GETs of the paths in bodies (lower case, no query) with
// those bodies, and 404 to everything else.
func fakeARM(t *testing.T, bodies map[string]string) *arm.Client {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if b, ok := bodies[strings.ToLower(r.URL.Path)]; ok && r.Method == http.MethodGet {
			_, _ = w.Write([]byte(b))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"ResourceNotFound","message":"not found"}}`))
	}))
	t.Cleanup(srv.Close)
	cl, err := arm.NewClient("azimport.test", "v0.1.0", staticToken{}, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud:     cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://management.core.windows.net/"}}},
		Transport: srv.Client(),
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}, DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func answerFile(t *testing.T, name string) string {
	t.Helper()
	for _, a := range answers(t) {
		if a.file == name {
			return string(a.Body)
		}
	}
	t.Fatalf("no testdata/answers/%s", name)
	return ""
}

const (
	testRG      = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/legacy"
	testAccount = testRG + "/providers/Microsoft.DocumentDB/databaseAccounts/acc"
)

func objectOf(t *testing.T, res Result, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range res.Objects {
		if o.GetKind() == kind {
			return o
		}
	}
	t.Fatalf("no %s imported; findings %v", kind, res.Findings)
	return nil
}

func missedAt(res Result, path string) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Missed && strings.Contains(f.Message, path+":") {
			out = append(out, f.Message)
		}
	}
	return out
}

func noMissed(t *testing.T, res Result) {
	t.Helper()
	for _, f := range res.Findings {
		if f.Missed {
			t.Errorf("missed: %s", f)
		}
	}
}

// A resource group whose tags Azure answers as null imports (it made `aztenant
// import` panic), as one whose tags are absent: no tags in the spec, nothing
// missed.
func TestImportTagsNull(t *testing.T) {
	im := newImporter(t, fakeARM(t, map[string]string{strings.ToLower(testRG): answerFile(t, "resourcegroup-tags-null.json")}))
	res, err := im.IDs(t.Context(), testRG)
	if err != nil {
		t.Fatal(err)
	}
	noMissed(t, res)
	rg := objectOf(t, res, "ResourceGroup")
	if _, found, _ := unstructured.NestedFieldNoCopy(rg.Object, "spec", "tags"); found {
		t.Errorf("tags in the spec: %v", rg.Object["spec"])
	}
	if l, _, _ := unstructured.NestedString(rg.Object, "spec", "location"); l != "westeurope" {
		t.Errorf("location %q", l)
	}
}

// Tags answered as something other than an object are reported at
// spec.tags, and the resource is imported without them.
func TestImportTagsNotAnObject(t *testing.T) {
	for _, tags := range []string{`"team=a"`, `["team"]`, `7`} {
		im := newImporter(t, fakeARM(t, map[string]string{strings.ToLower(testRG): `{"location":"westeurope","tags":` + tags + `}`}))
		res, err := im.IDs(t.Context(), testRG)
		if err != nil {
			t.Fatal(err)
		}
		objectOf(t, res, "ResourceGroup")
		if len(missedAt(res, "spec.tags")) != 1 {
			t.Errorf("tags %s: findings %v, want one missed at spec.tags", tags, res.Findings)
		}
	}
}

// Numbers and booleans answered as strings and back, enums and locations in
// Azure's display casing, null and empty lists: a Redis cache imports with
// each value as its kind takes it, and nothing missed (the old import lost
// the whole resource: "does not fit aztenant's Redis").
func TestImportValuesAsAzureGivesThem(t *testing.T) {
	redis := testRG + "/providers/Microsoft.Cache/Redis/cache1"
	im := newImporter(t, fakeARM(t, map[string]string{
		strings.ToLower(testRG): answerFile(t, "resourcegroup.json"),
		strings.ToLower(redis):  answerFile(t, "redis-numbers-as-strings.json"),
	}))
	res, err := im.IDs(t.Context(), testRG, redis)
	if err != nil {
		t.Fatal(err)
	}
	noMissed(t, res)
	spec := objectOf(t, res, "Redis").Object["spec"].(map[string]any)
	want := map[string]any{
		"location": "westus", "enableNonSslPort": false, "minimumTlsVersion": "1.2", "redisVersion": "6", "shardCount": int64(2),
		"sku":                map[string]any{"capacity": int64(1), "family": "P", "name": "Premium"},
		"redisConfiguration": map[string]any{"maxclients": "1000", "maxmemory-policy": "allkeys-lru"},
		"tags":               map[string]any{"team": "a", "cost": "42"},
		"owner":              map[string]any{"name": "legacy"},
	}
	got, _ := json.Marshal(spec)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("spec\n got %s\nwant %s", got, exp)
	}
}

// A Mongo role definition whose type Azure answers as an integer is
// imported with everything else; the type is reported (which of the enum's
// names the number stands for has no public source), not guessed.
func TestImportEnumAnsweredAsInteger(t *testing.T) {
	role := testAccount + "/mongodbRoleDefinitions/r1"
	account := strings.ReplaceAll(answerFile(t, "databaseaccount.json"), "/subscriptions/subid/resourceGroups/rg1/providers/Microsoft.DocumentDB/databaseAccounts/ddb1", testAccount)
	im := newImporter(t, fakeARM(t, map[string]string{
		strings.ToLower(testRG):      answerFile(t, "resourcegroup.json"),
		strings.ToLower(testAccount): account,
		strings.ToLower(role):        answerFile(t, "mongoroledefinition-type-integer.json"),
	}))
	res, err := im.IDs(t.Context(), testRG, testAccount, role)
	if err != nil {
		t.Fatal(err)
	}
	o := objectOf(t, res, "MongodbRoleDefinition")
	if n, _, _ := unstructured.NestedString(o.Object, "spec", "roleName"); n != "myRoleName" {
		t.Errorf("roleName %q", n)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "type"); found {
		t.Errorf("type imported: %v", o.Object["spec"])
	}
	if m := missedAt(res, "spec.type"); len(m) != 1 || !strings.Contains(m[0], "number 1") || !strings.Contains(m[0], "CustomRole") {
		t.Errorf("findings %v, want one missed at spec.type naming the number and the enum", res.Findings)
	}
}

// A role assignment Azure lists without a role assignment's ID is a finding
// (it made the import panic), and the rest is imported.
func TestImportRoleAssignmentWithoutID(t *testing.T) {
	im := newImporter(t, fakeARM(t, map[string]string{
		strings.ToLower(testRG): answerFile(t, "resourcegroup.json"),
		strings.ToLower(testRG + "/providers/Microsoft.Authorization/roleAssignments"): `{"value":[{"properties":{"scope":"` + testRG + `"}},` +
			`{"id":null,"properties":{"scope":"` + testRG + `"}}, null, 5]}`,
	}))
	res, err := im.IDs(t.Context(), testRG)
	if err != nil {
		t.Fatal(err)
	}
	objectOf(t, res, "ResourceGroup")
	var missed int
	for _, f := range res.Findings {
		if f.Missed {
			missed++
		}
	}
	if missed != 4 || slices.ContainsFunc(res.Objects, func(o *unstructured.Unstructured) bool { return o.GetKind() == "RoleAssignment" }) {
		t.Errorf("findings %v, want 4 missed (2 without IDs, null, a number) and no role assignment", res.Findings)
	}
}

// A listing whose nextLink leaves the ARM endpoint is refused: the next
// page would get the user's token.
func TestImportListStaysOnTheEndpoint(t *testing.T) {
	im := newImporter(t, fakeARM(t, map[string]string{
		strings.ToLower(testRG): answerFile(t, "resourcegroup.json"),
		strings.ToLower(testRG + "/providers/Microsoft.Authorization/roleAssignments"): `{"value":[],"nextLink":"https://elsewhere.example/x"}`,
	}))
	if _, err := im.IDs(t.Context(), testRG); err == nil || !strings.Contains(err.Error(), "leaves the ARM endpoint") {
		t.Errorf("error %v, want the nextLink refused", err)
	}
}

// Every example of testdata/answers imports as its kind, with nothing
// missed but the values its kind cannot take as Azure answered them.
func TestImportExamples(t *testing.T) {
	im := newImporter(t, nil)
	expectMissed := map[string]string{
		"mongoroledefinition-type-integer.json": "spec.type",
		// Azure answers the full version (4.0.14); the CRD takes major[.minor]
		// or latest, as armredis v3.3.0 models.go documents the field ("This
		// should be in the form 'major[.minor]'"): the user picks one.
		"redis.json": "spec.redisVersion",
	}
	for _, a := range answers(t) {
		t.Run(a.file, func(t *testing.T) {
			k, ok := im.kinds[strings.ToLower(a.Type)]
			if !ok {
				t.Fatalf("no kind for %s", a.Type)
			}
			var body map[string]any
			if err := json.Unmarshal(a.Body, &body); err != nil {
				t.Fatal(err)
			}
			im.res = Result{}
			gvk := im.Registry.GroupVersionKind(k)
			spec := im.specFor("/x", gvk, body)
			if _, err := im.decode(gvk, "x", spec); err != nil {
				t.Fatalf("does not fit: %v", err)
			}
			for _, f := range im.res.Findings {
				if f.Missed && (expectMissed[a.file] == "" || !strings.HasPrefix(f.Message, expectMissed[a.file]+":")) {
					t.Errorf("missed: %s", f.Message)
				}
			}
			if len(spec) == 0 {
				t.Errorf("empty spec")
			}
		})
	}
}

// Azure answers some children's name as their path ("site/slot": App Service slots, as
// the slot examples of azure-rest-api-specs answer them, emulator/answers
// childName "path"); the import names the object and its azureName from the ID's last
// segment, never from the body's name, so a slot imports as "staging" under its site.
func TestImportChildNamedAsPath(t *testing.T) {
	site := testRG + "/providers/Microsoft.Web/sites/site1"
	slot := site + "/slots/staging"
	im := newImporter(t, fakeARM(t, map[string]string{
		strings.ToLower(testRG): `{"id":"` + testRG + `","name":"legacy","location":"westeurope"}`,
		strings.ToLower(site):   `{"id":"` + site + `","name":"site1","type":"Microsoft.Web/sites","location":"westeurope","properties":{}}`,
		strings.ToLower(slot):   `{"id":"` + slot + `","name":"site1/staging","type":"Microsoft.Web/sites/slots","location":"westeurope","properties":{}}`,
	}))
	res, err := im.IDs(t.Context(), testRG, site, slot)
	if err != nil {
		t.Fatal(err)
	}
	noMissed(t, res)
	o := objectOf(t, res, "SitesSlot")
	azureName, _, _ := unstructured.NestedString(o.Object, "spec", "azureName")
	owner, _, _ := unstructured.NestedString(o.Object, "spec", "owner", "name")
	if strings.Contains(o.GetName(), "/") || strings.Contains(azureName, "/") || (azureName != "" && azureName != "staging") || owner == "" {
		t.Errorf("slot imported as %q, azureName %q, owner %q: want staging under its site", o.GetName(), azureName, owner)
	}
}
