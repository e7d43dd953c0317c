package kinds_test

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// The names the generator's config says Azure turns into resources or
// destinations (api/kinds.yaml, names:) are in the Facts.Names of the kind's
// adapter (an AKS cluster's nodeResourceGroup among them),
// with what they mean; and no adapter declares one the config does not list.
func TestNamesFollowTheConfig(t *testing.T) {
	data, err := os.ReadFile("../../api/kinds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Kinds []struct {
			Kind, Group string
			Fields      map[string]struct {
				Names, Subscription string
			}
		}
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := api.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]reconcilers.Kind{}
	for _, k := range kinds.All() {
		gvk, err := apiutil.GVKForObject(k.New(), scheme)
		if err != nil {
			t.Fatal(err)
		}
		byKey[gvk.Group+"/"+gvk.Kind] = k
	}
	declared := 0
	for _, k := range byKey {
		declared += len(k.Facts().Names)
	}
	listed := 0
	for _, c := range cfg.Kinds {
		for path, f := range c.Fields {
			if f.Names == "" {
				continue
			}
			listed++
			k := byKey[c.Group+".aztenant.io/"+c.Kind]
			if k == nil {
				t.Errorf("%s/%s: no adapter", c.Group, c.Kind)
				continue
			}
			found := false
			for _, n := range k.Facts().Names {
				found = found || (unstar(n.Path) == path && n.Means == f.Names && (f.Subscription == "") == (n.SubscriptionPath == ""))
			}
			if !found {
				t.Errorf("%s/%s: Facts.Names lacks %s (%s): %+v", c.Group, c.Kind, path, f.Names, k.Facts().Names)
			}
		}
	}
	if listed == 0 || declared != listed {
		t.Errorf("%d names declared by adapters, %d listed in api/kinds.yaml", declared, listed)
	}
}

// unstar drops the "*" steps a NameRef takes through a map's values: the
// config's paths name the field of the map's element type.
func unstar(path string) string {
	out := ""
	for _, s := range strings.Split(path, ".") {
		if s != "*" {
			if out != "" {
				out += "."
			}
			out += s
		}
	}
	return out
}
