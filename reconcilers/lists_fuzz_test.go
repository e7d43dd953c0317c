package reconcilers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/azureanswers"
	"github.com/aztenant/aztenant/reconcilers/armclient"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// listFuzzKind serves ResourceGroup objects (any type would do: a listing
// does not look at the kind's type).
type listFuzzKind struct{}

func (listFuzzKind) New() azurev1alpha1.Resource { return &resourcesv1alpha1.ResourceGroup{} }
func (listFuzzKind) Facts() Facts {
	return Facts{ResourceType: "Microsoft.KeyVault/vaults", APIVersion: "2024-11-01"}
}
func (listFuzzKind) Desired(azurev1alpha1.Resource, map[string]string) (map[string]any, error) {
	return nil, nil
}
func (listFuzzKind) Observe(azurev1alpha1.Resource, map[string]any) {}
func (listFuzzKind) Hooks() Hooks                                   { return Hooks{} }

const (
	listFuzzID  = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/sample-vault"
	listFuzzGet = `{"id":"` + listFuzzID + `","properties":{"readBy":"GET"}}`
)

// listingPage is a listing's first page with body in it as the object's item
// (its id set to the object's), a neighbour, and a second page.
func listingPage(body []byte) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil || m == nil {
		return nil
	}
	m["id"] = listFuzzID
	item, _ := json.Marshal(m)
	return []byte(`{"value":[{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/other","properties":{}},` + string(item) + `],"nextLink":"{{next}}"}`)
}

// FuzzListedAnswer serves a listing page shaped like Azure's (items from its
// response examples, nulls, numbers as strings, items that are not objects,
// ids in another casing, a nextLink) to the drift check by list, for a steady
// object, as a reconcile reads its resource (current: the listing, else a
// GET). It must not panic; what it returns must be the listing's item for
// the object or the GET's answer; when the page holds exactly one item for
// the object, it must be that item; an early second look must return the
// same; and the body compared with itself has no difference.
func FuzzListedAnswer(f *testing.F) {
	for _, b := range azureanswers.Bodies(f) {
		f.Add(listingPage(b))
		for _, o := range azureanswers.OddShapes(b) {
			if p := listingPage(o); p != nil {
				f.Add(p)
			}
		}
	}
	f.Add([]byte(`{"value":null}`))
	f.Add([]byte(`{"value":[null,5,"x",{"id":5},{"ID":"` + strings.ToUpper(listFuzzID) + `","tags":null}],"nextLink":null}`))
	f.Add([]byte(`{"value":[{"id":"` + listFuzzID + `","tags":{"a":"1"}},{"id":"` + listFuzzID + `","tags":{"a":"2"}}]}`))
	f.Add([]byte(`{"value":[{"id":"` + listFuzzID + `"}],"nextLink":"https://elsewhere.example/next"}`))
	f.Add([]byte(`null`))

	scheme := runtime.NewScheme()
	if err := resourcesv1alpha1.AddToScheme(scheme); err != nil {
		f.Fatal(err)
	}
	k := listFuzzKind{}
	reg, err := NewRegistry(scheme, k)
	if err != nil {
		f.Fatal(err)
	}
	var mu sync.Mutex
	var page []byte
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		mu.Lock()
		p := page
		mu.Unlock()
		switch {
		case strings.EqualFold(r.URL.Path, listFuzzID):
			_, _ = w.Write([]byte(listFuzzGet))
		case r.URL.Query().Get("page") == "2":
			_, _ = w.Write([]byte(`{"value":[{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/third"}]}`))
		default:
			_, _ = w.Write(bytes.ReplaceAll(p, []byte("{{next}}"), []byte("https://"+r.Host+r.URL.Path+"?api-version=v&page=2")))
		}
	}))
	f.Cleanup(srv.Close)
	cl, err := arm.NewClient("m", "v1.0.0", staticToken{}, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud:     cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://management.core.windows.net/"}}},
		Transport: srv.Client(),
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}, DisableRPRegistration: true})
	if err != nil {
		f.Fatal(err)
	}
	calls := armclient.New(cl, "v")
	steadyObject := func() *resourcesv1alpha1.ResourceGroup {
		obj := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "v"}}
		obj.Status.ID = listFuzzID
		obj.Status.Conditions = []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonSucceeded, LastTransitionTime: metav1.Now()}}
		return obj
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(steadyObject()).Build()
	scope := identity.Scope{TenantID: "t", ClientID: "c"}

	f.Fuzz(func(t *testing.T, p []byte) {
		mu.Lock()
		page = p
		mu.Unlock()
		r := &Reconciler{Client: c, Kind: k, Registry: reg}
		obj := steadyObject()
		current := func() (map[string]any, error) {
			x := &run{mode: modeManage, obj: obj, calls: calls, scope: scope, id: listFuzzID, period: time.Hour}
			err := r.stepRead(t.Context(), x)
			return x.actual, err
		}
		body, err := current()
		if err != nil {
			t.Fatalf("current: %v", err)
		}
		items, onlyOne := itemsFor(p)
		raw, _ := json.Marshal(body)
		if !bytes.Equal(raw, []byte(compactJSON(listFuzzGet))) && !containsJSON(items, raw) {
			t.Fatalf("read %s: neither the listing's item for the object nor the GET's answer\npage %s", raw, p)
		}
		if onlyOne != nil && !bytes.Equal(raw, onlyOne) {
			t.Fatalf("read %s, want the listing's one item for the object %s\npage %s", raw, onlyOne, p)
		}
		again, err := current()
		if err != nil {
			t.Fatalf("current again: %v", err)
		}
		if raw2, _ := json.Marshal(again); !bytes.Equal(raw, raw2) {
			t.Fatalf("looked at again at once, read %s, then %s\npage %s", raw, raw2, p)
		}
		if body != nil {
			if d := comparison.Differences(body, cloneJSON(body).(map[string]any), comparison.Rules{}); len(d) > 0 {
				t.Fatalf("the listed body differs from itself at %v: %s", d, raw)
			}
		}
	})
}

// itemsFor are the page's items whose id is the object's (compact JSON; nil
// for one that is not an object), and the only one when the page holds
// exactly one such item and no nextLink but the test server's own.
func itemsFor(p []byte) (all [][]byte, only []byte) {
	var page struct {
		Value    []json.RawMessage `json:"value"`
		NextLink string            `json:"nextLink"`
	}
	parsed := json.Unmarshal(p, &page) == nil
	var mine [][]byte
	for _, it := range page.Value {
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(it, &head) == nil && strings.EqualFold(head.ID, listFuzzID) {
			var m map[string]any
			if json.Unmarshal(it, &m) == nil && m != nil {
				c, _ := json.Marshal(m)
				mine = append(mine, c)
			} else {
				mine = append(mine, nil)
			}
		}
	}
	if parsed && (page.NextLink == "" || page.NextLink == "{{next}}") && len(mine) == 1 { // the second page has no item of the object
		return mine, mine[0]
	}
	return mine, nil
}

func containsJSON(l [][]byte, b []byte) bool {
	for _, e := range l {
		if e != nil && bytes.Equal(e, b) {
			return true
		}
	}
	return false
}

func compactJSON(s string) string {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	raw, _ := json.Marshal(v)
	return string(raw)
}
