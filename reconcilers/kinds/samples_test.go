package kinds_test

import (
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// Every sample manifest decodes, strictly, into its generated kind, and its adapter makes a
// body of it: a quick check, without a control plane, of what TestGeneratedKindsLifecycle
// runs.
func TestGeneratedSamplesDecode(t *testing.T) {
	scheme := runtime.NewScheme()
	must(t, api.AddToScheme(scheme))
	byGK := map[schema.GroupKind]reconcilers.Kind{}
	for _, k := range kinds.Generated() {
		gvks, _, err := scheme.ObjectKinds(k.New())
		must(t, err)
		byGK[gvks[0].GroupKind()] = k
	}
	files, err := filepath.Glob("../../examples/generated/*/*.yaml")
	if err != nil || len(files) != len(byGK) {
		t.Fatalf("%d samples for %d generated kinds (%v)", len(files), len(byGK), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		var tm metav1.TypeMeta
		must(t, yaml.Unmarshal(data, &tm))
		k := byGK[tm.GroupVersionKind().GroupKind()]
		if k == nil {
			t.Errorf("%s: %s is not a generated kind", f, tm.GroupVersionKind().GroupKind())
			continue
		}
		obj := k.New()
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if errs := validation.IsDNS1123Subdomain(obj.GetName()); len(errs) > 0 {
			t.Errorf("%s: metadata.name %q: %v (Azure's name goes in spec.azureName)", f, obj.GetName(), errs)
		}
	}
}
