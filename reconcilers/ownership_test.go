package reconcilers

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// The marker tells objects apart by cluster, namespace, kind and name, and
// shows which cluster it comes from; it names nothing readable.
func TestOwnerMarker(t *testing.T) {
	rg := schema.GroupKind{Group: "resources.aztenant.io", Kind: "ResourceGroup"}
	sa := schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccount"}
	m := OwnerMarker("uid-1", "team-a", rg, "app")
	if m != OwnerMarker("uid-1", "team-a", rg, "app") {
		t.Fatal("the marker is not stable")
	}
	seen := map[string]string{m: "base"}
	for what, other := range map[string]string{
		"cluster":   OwnerMarker("uid-2", "team-a", rg, "app"),
		"namespace": OwnerMarker("uid-1", "team-b", rg, "app"),
		"kind":      OwnerMarker("uid-1", "team-a", sa, "app"),
		"name":      OwnerMarker("uid-1", "team-a", rg, "app2"),
		"boundary":  OwnerMarker("uid-1", "team-", rg, "aapp"),
	} {
		if prev, dup := seen[other]; dup {
			t.Errorf("another %s gives the marker of %s", what, prev)
		}
		seen[other] = what
	}
	cluster, obj, ok := strings.Cut(m, ".")
	if !ok || len(cluster) != 8 || len(obj) != 32 {
		t.Errorf("marker %q: want <8 hex>.<32 hex>", m)
	}
	if c2, _, _ := strings.Cut(OwnerMarker("uid-1", "team-b", sa, "x"), "."); c2 != cluster {
		t.Error("objects of one cluster have different cluster parts")
	}
	for _, leak := range []string{"team-a", "app", "ResourceGroup", "uid-1"} {
		if strings.Contains(m, leak) {
			t.Errorf("marker %q shows %q", m, leak)
		}
	}
	if TagOnboardedBy != onboarding.TagOnboardedBy {
		t.Errorf("TagOnboardedBy %q is not onboarding's %q", TagOnboardedBy, onboarding.TagOnboardedBy)
	}
}

// A PUT keeps the tags the spec does not manage, drops the ones that left
// the spec, and takes the spec's values (and names' casing) for its own.
func TestMergeTags(t *testing.T) {
	var desired, actual map[string]any
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(json.Unmarshal([]byte(`{"location":"westeurope","tags":{"team":"a","aztenant.io-owner":"mine"}}`), &desired))
	must(json.Unmarshal([]byte(`{"location":"westeurope","tags":{"Team":"eve","costcenter":"42","env":"dev","aztenant.io-owner":"stale"}}`), &actual))
	body := mergeTags(desired, actual, []string{"ENV"})
	got := map[string]string{}
	for k, v := range body["tags"].(map[string]any) {
		got[k] = v.(string)
	}
	want := map[string]string{"team": "a", "costcenter": "42", "aztenant.io-owner": "mine"}
	if !maps.Equal(got, want) {
		t.Errorf("tags %v, want %v", got, want)
	}
	if body["location"] != "westeurope" {
		t.Errorf("body lost its other fields: %v", body)
	}
	if len(desired["tags"].(map[string]any)) != 2 {
		t.Error("mergeTags changed the desired body")
	}
	if d := droppedTag(actual, []string{"ENV"}); d != "tags.env (removed from the spec)" {
		t.Errorf("droppedTag = %q", d)
	}
	if d := droppedTag(actual, []string{"gone"}); d != "" {
		t.Errorf("droppedTag of an absent tag = %q", d)
	}
	if out := mergeTags(map[string]any{"properties": map[string]any{}}, actual, nil); out["tags"] != nil {
		t.Errorf("a kind without tags got tags: %v", out)
	}
}
