package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api/authorization/roles"
)

// tableLists are the role lists the RoleAssignment template must carry, from
// the role table: privileged (GUID -> name) for roles.Privileged, broad for
// roles.Broad (denied at subscription scope only), and names (lower-case
// name -> GUID) for both.
func tableLists() (names, privileged, broad map[string]string) {
	names, privileged, broad = map[string]string{}, map[string]string{}, map[string]string{}
	for _, d := range roles.BuiltIn() {
		p, _ := roles.Privileged(d)
		b, _ := roles.Broad(d)
		switch {
		case p:
			privileged[d.ID] = d.Name
		case b:
			broad[d.ID] = d.Name
		default:
			continue
		}
		names[strings.ToLower(d.Name)] = d.ID
	}
	return names, privileged, broad
}

var regoEntry = regexp.MustCompile(`"([^"]+)":\s*"([^"]+)"`)

// regoObject reads `name := { "k": "v", ... }` from Rego source.
func regoObject(t *testing.T, src, name string) map[string]string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n\s*` + regexp.QuoteMeta(name) + ` := \{(.*?)\n\s*\}`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("the Rego source has no %s object", name)
	}
	out := map[string]string{}
	for _, e := range regoEntry.FindAllStringSubmatch(m[1], -1) {
		out[e[1]] = e[2]
	}
	return out
}

// The template's lists of privileged roles, in both its CEL and its Rego
// source, are exactly the built-in roles the role table marks privileged by
// their actions (and Contributor's broad shape apart): adding a role to the
// table, or a change to what Privileged decides, fails here until the template
// says the same.
func TestTemplateListsTheTablesPrivilegedRoles(t *testing.T) {
	raw, err := fs.ReadFile(Library(), "roleassignment/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Spec struct {
			Targets []struct {
				Code []struct {
					Engine string `json:"engine"`
					Source struct {
						Variables []struct{ Name, Expression string } `json:"variables"`
						Rego      string                              `json:"rego"`
					} `json:"source"`
				} `json:"code"`
			} `json:"targets"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &tmpl); err != nil {
		t.Fatal(err)
	}
	names, privileged, broad := tableLists()
	want := map[string]map[string]string{"names": names, "privileged": privileged, "broad": broad}
	engines := 0
	for _, code := range tmpl.Spec.Targets[0].Code {
		got := map[string]map[string]string{}
		switch code.Engine {
		case "K8sNativeValidation":
			for _, v := range code.Source.Variables {
				if _, ok := want[v.Name]; ok {
					m := map[string]string{}
					if err := json.Unmarshal([]byte(v.Expression), &m); err != nil {
						t.Fatalf("CEL variable %s is not a literal map of strings: %v", v.Name, err)
					}
					got[v.Name] = m
				}
			}
		case "Rego":
			for name := range want {
				got[name] = regoObject(t, code.Source.Rego, name)
			}
		default:
			continue
		}
		engines++
		for name, w := range want {
			if !maps.Equal(got[name], w) {
				b, _ := json.MarshalIndent(w, "", "  ")
				t.Errorf("%s %s = %v\nwant (from the role table):\n%s", code.Engine, name, got[name], b)
			}
		}
	}
	if engines != 2 {
		t.Fatalf("found %d engines' sources, want CEL and Rego", engines)
	}
}

// Every built-in role of the table, named and by ID, is denied by the guard
// constraint exactly when the table marks it privileged (Contributor only at
// subscription scope), with both engines: the template's behaviour, not only
// its lists.
func TestEveryPrivilegedBuiltInRoleIsDenied(t *testing.T) {
	ctx := context.Background()
	constraint := readLibraryObject(t, "roleassignment/samples/roleassignment-guard/constraint.yaml")
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001"
	ra := func(name string, owner, ref map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "authorization.aztenant.io/v1alpha1", "kind": "RoleAssignment",
			"metadata": map[string]any{"name": name, "namespace": "team-a"},
			"spec":     map[string]any{"owner": owner, "roleDefinitionReference": ref, "principalId": "11111111-2222-3333-4444-555555555555"},
		}}
	}
	for _, engine := range []Engine{EngineCEL, EngineRego} {
		for i, d := range roles.BuiltIn() {
			privileged, _ := roles.Privileged(d)
			broad, _ := roles.Broad(d)
			byName := ra(fmt.Sprintf("by-name-%d", i), map[string]any{"name": "team-a-rg"}, map[string]any{"wellKnownName": d.Name})
			byID := ra(fmt.Sprintf("by-id-%d", i), map[string]any{"armId": sub + "/resourceGroups/team-a"},
				map[string]any{"armId": sub + "/providers/Microsoft.Authorization/roleDefinitions/" + strings.ToUpper(d.ID)})
			vs, err := Evaluate(ctx, []*unstructured.Unstructured{constraint, byName, byID}, nil, WithEngine(engine))
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if privileged {
				want = 2
			}
			if len(vs) != want {
				t.Errorf("%s %s (privileged %v): %d violations %q, want %d", engine, d.Name, privileged, len(vs), messages(vs), want)
			}
			for _, v := range vs {
				if !strings.Contains(v.Message, "grants privileged role "+d.Name+" ("+d.ID+")") {
					t.Errorf("%s %s: message %q", engine, d.Name, v.Message)
				}
			}
			if !broad {
				continue
			}
			// The scope prefix check denies a subscription scope too; the broad
			// role's own violation is the other one.
			atSub := ra(fmt.Sprintf("at-sub-%d", i), map[string]any{"armId": sub}, map[string]any{"wellKnownName": d.Name})
			vs, err = Evaluate(ctx, []*unstructured.Unstructured{constraint, atSub}, nil, WithEngine(engine))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(messages(vs), func(m string) bool { return strings.Contains(m, "grants "+d.Name+" at subscription scope "+sub) }) {
				t.Errorf("%s %s at subscription scope: %q", engine, d.Name, messages(vs))
			}
		}
	}
}
