package reconcilers

import (
	"context"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// fakeKind is a kind of the given facts and hooks.
type fakeKind struct {
	facts Facts
	hooks func() Hooks
}

func (fakeKind) New() azurev1alpha1.Resource { return nil }
func (k fakeKind) Facts() Facts              { return k.facts }
func (fakeKind) Desired(azurev1alpha1.Resource, map[string]string) (map[string]any, error) {
	return nil, nil
}
func (fakeKind) Observe(azurev1alpha1.Resource, map[string]any) {}
func (k fakeKind) Hooks() Hooks                                 { return k.hooks() }

var _ Kind = fakeKind{}

// A kind that breaks the contract is refused when it is registered, not
// found out in a reconcile.
func TestCheckKind(t *testing.T) {
	facts := Facts{ResourceType: "Microsoft.Example/things", APIVersion: "2024-01-01"}
	dests := func(azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination { return nil }
	secrets := func(context.Context, ActionCaller, azurev1alpha1.Resource) (map[string]string, error) {
		return nil, nil
	}
	values := func(azurev1alpha1.Resource) map[string]string { return nil }
	for _, c := range []struct {
		name  string
		facts Facts
		hooks Hooks
		want  string
	}{
		{"plain", facts, Hooks{}, ""},
		{"both secret hooks", facts, Hooks{Secrets: secrets, SecretDestinations: dests}, ""},
		{"no resource type", Facts{APIVersion: "2024-01-01"}, Hooks{}, "ResourceType"},
		{"no api-version", Facts{ResourceType: facts.ResourceType}, Hooks{}, "APIVersion"},
		{"secrets without destinations", facts, Hooks{Secrets: secrets}, "SecretDestinations"},
		{"destinations without secrets", facts, Hooks{SecretDestinations: dests}, "Hooks.Secrets"},
		{"ConfigMap values without destinations", facts, Hooks{ConfigMapValues: values}, "ConfigMapDestinations"},
	} {
		err := checkKind(fakeKind{facts: c.facts, hooks: func() Hooks { return c.hooks }})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}
