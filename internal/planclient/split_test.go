package planclient

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func obj(kind, name, owner string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": name}}}
	if owner != "" {
		u.Object["spec"] = map[string]any{"owner": map[string]any{"name": owner}}
	}
	return u
}

// Objects are planned in Plans the CRD takes, an owner tree in one, each
// Plan's objects in the manifests' order.
func TestSplitKeepsOwnerTreesTogether(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj("ResourceGroup", "a", ""),    // 0
		obj("ResourceGroup", "b", ""),    // 1
		obj("StorageAccount", "a1", "a"), // 2
		obj("Container", "a1c", "a1"),    // 3
		obj("StorageAccount", "b1", "b"), // 4
		obj("ResourceGroup", "c", ""),    // 5
		obj("Vault", "x", "elsewhere"),   // 6: an owner not in the plan
		obj("StorageAccount", "c1", "c"), // 7
	}
	for _, c := range []struct {
		max  int
		want [][]int
	}{
		{max: 200, want: [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{max: 4, want: [][]int{{0, 2, 3}, {1, 4, 5, 7}, {6}}},
		{max: 3, want: [][]int{{0, 2, 3}, {1, 4}, {5, 6, 7}}},
	} {
		got, err := split(objs, c.max)
		if err != nil {
			t.Fatalf("max %d: %v", c.max, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("max %d: %v, want %v", c.max, got, c.want)
		}
	}
	if _, err := split(objs, 2); err == nil || !strings.Contains(err.Error(), "3 objects form one owner tree (from ResourceGroup a)") {
		t.Errorf("a tree over the bound: %v", err)
	}
}

// MaxObjects is the Plan CRD's bound.
func TestMaxObjectsIsTheCRDs(t *testing.T) {
	raw, err := os.ReadFile("../../api/crds/plan.aztenant.io_plans.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]struct {
							Properties map[string]struct {
								MaxItems int `json:"maxItems"`
							} `json:"properties"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	if got := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["objects"].MaxItems; got != MaxObjects {
		t.Errorf("the Plan CRD holds %d objects, MaxObjects is %d", got, MaxObjects)
	}
}
