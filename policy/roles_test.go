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

// celList reads `- name: <name>` variable's list literal of strings (or of
// lists of strings) from the template's CEL source.
func celList(t *testing.T, src, name string) [][]string {
	t.Helper()
	m := regexp.MustCompile(`(?s)- name: ` + regexp.QuoteMeta(name) + `\n\s*expression: >-\n(.*?)\n\s*- name: `).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("the CEL source has no %s variable", name)
	}
	var out [][]string
	body := strings.TrimSpace(m[1])
	if strings.HasPrefix(body, "[[") {
		for _, g := range regexp.MustCompile(`\[([^\[\]]*)\]`).FindAllStringSubmatch(body, -1) {
			out = append(out, regexp.MustCompile(`"([^"]+)"`).FindAllString(g[1], -1))
		}
	} else {
		out = append(out, regexp.MustCompile(`"([^"]+)"`).FindAllString(body, -1))
	}
	for _, g := range out {
		for i := range g {
			g[i] = strings.Trim(g[i], `"`)
		}
	}
	return out
}

// The RoleDefinition template looks for the actions roles.Privileged looks
// for (both its CEL and its Rego lists), and decides as Privileged does on
// every role of the table, written as a custom RoleDefinition, and on
// synthetic roles holding one power each, with both engines.
func TestRoleDefinitionTemplateAgreesWithPrivileged(t *testing.T) {
	data, err := fs.ReadFile(Library(), "roledefinition/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	grant, actAs, dataPowers := roles.PrivilegedActions()
	if got := celList(t, src, "grantPowers"); !slices.Equal(got[0], grant) {
		t.Errorf("CEL grantPowers %q, want %q", got[0], grant)
	}
	if got := celList(t, src, "actAsPowers"); !slices.Equal(got[0], actAs) {
		t.Errorf("CEL actAsPowers %q, want %q", got[0], actAs)
	}
	if got := celList(t, src, "dataPowers"); !slices.EqualFunc(got, dataPowers, slices.Equal) {
		t.Errorf("CEL dataPowers %q, want %q", got, dataPowers)
	}
	for name, want := range map[string][]string{"grant_powers": grant, "act_as_powers": actAs} {
		m := regexp.MustCompile(`(?s)\n\s*` + name + ` := \[(.*?)\n\s*\]`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("the Rego source has no %s", name)
		}
		got := regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[1], -1)
		var names []string
		for _, g := range got {
			names = append(names, g[1])
		}
		if !slices.Equal(names, want) {
			t.Errorf("Rego %s %q, want %q", name, names, want)
		}
	}
	m := regexp.MustCompile(`(?s)\n\s*data_powers := \[(.*?)\n\s{14}\]`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("the Rego source has no data_powers")
	}
	var flat, wantFlat []string
	for _, g := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[1], -1) {
		flat = append(flat, g[1])
	}
	for _, g := range dataPowers {
		wantFlat = append(wantFlat, g...)
	}
	if !slices.Equal(flat, wantFlat) {
		t.Errorf("Rego data_powers %q, want %q", flat, wantFlat)
	}

	defs := roles.BuiltIn()
	for _, a := range append(append([]string(nil), grant...), actAs...) {
		defs = append(defs, roles.Definition{Name: "one " + a, Custom: true, Permissions: []roles.Permission{{Actions: []string{strings.ToUpper(a)}}}})
	}
	for _, g := range dataPowers {
		defs = append(defs, roles.Definition{Name: "data " + g[0], Custom: true, Permissions: []roles.Permission{{DataActions: g}}})
		if len(g) > 1 { // a group needs all its actions
			defs = append(defs, roles.Definition{Name: "part of " + g[0], Custom: true, Permissions: []roles.Permission{{DataActions: g[1:]}}})
		}
	}
	constraint := readLibraryObject(t, "roledefinition/samples/no-privileged-custom-roles/constraint.yaml")
	objs := []*unstructured.Unstructured{constraint}
	want := map[string]bool{}
	for i, d := range defs {
		name := fmt.Sprintf("role-%d", i)
		var perms []any
		for _, p := range d.Permissions {
			block := map[string]any{}
			for k, v := range map[string][]string{"actions": p.Actions, "notActions": p.NotActions, "dataActions": p.DataActions, "notDataActions": p.NotDataActions} {
				if len(v) > 0 {
					block[k] = toAny(v)
				}
			}
			perms = append(perms, block)
		}
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "authorization.aztenant.io/v1alpha1", "kind": "RoleDefinition",
			"metadata": map[string]any{"name": name, "namespace": "team-a"},
			"spec":     map[string]any{"roleName": d.Name, "permissions": perms},
		}})
		want["RoleDefinition team-a/"+name], _ = roles.Privileged(d)
	}
	privileged := 0
	for _, p := range want {
		if p {
			privileged++
		}
	}
	if privileged < 20 || len(want)-privileged < 5 {
		t.Fatalf("%d of %d roles privileged: the comparison needs both kinds", privileged, len(want))
	}
	for _, engine := range []Engine{EngineCEL, EngineRego} {
		vs, err := Evaluate(context.Background(), objs, nil, WithEngine(engine))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, v := range vs {
			got[v.Object] = true
		}
		for i, d := range defs {
			key := fmt.Sprintf("RoleDefinition team-a/role-%d", i)
			if got[key] != want[key] {
				_, why := roles.Privileged(d)
				t.Errorf("%s: %s denied %v, Privileged says %v (%s)", engine, d.Name, got[key], want[key], why)
			}
		}
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
