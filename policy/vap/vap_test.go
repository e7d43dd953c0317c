package vap_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/open-policy-agent/frameworks/constraint/pkg/core/templates"
	"google.golang.org/protobuf/types/known/structpb"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/policy/vap"
)

// Every sample constraint of the library becomes a policy and a binding that
// carry the constraint's own values, so the output enforces what Gatekeeper
// would with the same constraints.
func TestLibraryConverts(t *testing.T) {
	tmpls, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	constraints, err := policy.SampleConstraints()
	if err != nil {
		t.Fatal(err)
	}
	res, err := vap.Generate(tmpls, constraints)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unsupported) > 0 {
		t.Errorf("library templates not converted: %v", res.Unsupported)
	}
	if len(res.Pairs) != len(constraints) {
		t.Fatalf("%d policies for %d constraints", len(res.Pairs), len(constraints))
	}
	for _, p := range res.Pairs {
		if p.Binding.Spec.PolicyName != p.Policy.Name || p.Binding.Spec.ParamRef != nil || p.Policy.Spec.ParamKind != nil {
			t.Errorf("%s: binding does not stand alone on its policy: %+v", p.Policy.Name, p.Binding.Spec)
		}
		if !reflect.DeepEqual(p.Binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
			t.Errorf("%s: actions %v, want [Deny]", p.Policy.Name, p.Binding.Spec.ValidationActions)
		}
	}
	guard := find(t, res, "AztenantRoleAssignment/roleassignment-guard")
	if params := variable(guard, "params"); !strings.Contains(params, "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/team-a-shared") {
		t.Errorf("the constraint's parameters are not in the policy: %s", params)
	}

	var out bytes.Buffer
	if err := res.WriteYAML(&out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\nkind: ValidatingAdmissionPolicyBinding\n"); n != len(constraints) {
		t.Errorf("YAML holds %d bindings, want %d", n, len(constraints))
	}
	if strings.Contains(out.String(), "status:") || strings.Contains(out.String(), "creationTimestamp") {
		t.Errorf("YAML carries server-set fields:\n%s", out.String())
	}
}

const regoOnly = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: regoonly
spec:
  crd:
    spec:
      names:
        kind: RegoOnly
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package regoonly
        violation[{"msg": "no"}] { true }
`

const reservedVariable = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: reservedvariable
spec:
  crd:
    spec:
      names:
        kind: ReservedVariable
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            variables:
              - name: namespace
                expression: 'object.metadata.namespace'
            validations:
              - expression: 'variables.namespace != "kube-system"'
                message: kube-system is not allowed
`

const badExpression = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: badexpression
spec:
  crd:
    spec:
      names:
        kind: BadExpression
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            validations:
              - expression: 'params.spec.parameters.x == 1'
                message: reads params, which only a paramKind provides
`

// What cannot be expressed is listed by name with the reason, and does not
// stop the rest from being converted.
func TestUnsupportedIsNamed(t *testing.T) {
	tmpls, _ := decode(t, regoOnly, reservedVariable, badExpression)
	lib, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	tmpls = append(tmpls, lib...)
	_, constraints := decode(t,
		constraint("RegoOnly", "a", ""), constraint("RegoOnly", "b", ""),
		constraint("ReservedVariable", "c", ""),
		constraint("BadExpression", "d", ""),
		constraint("NoSuchKind", "e", ""),
		constraint("AztenantRoleAssignment", "generated-only", "  match:\n    source: Generated\n"),
		constraint("AztenantRoleAssignment", "audit-only", "  enforcementAction: scoped\n  scopedEnforcementActions:\n    - action: deny\n      enforcementPoints:\n        - name: audit.gatekeeper.sh\n"),
		constraint("AztenantRoleAssignment", "unknown-match", "  match:\n    kindz: []\n"),
		constraint("AztenantRoleAssignment", "fine", ""),
	)
	res, err := vap.Generate(tmpls, constraints)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].Policy.Name != "aztenant-aztenantroleassignment-fine" {
		t.Errorf("converted %v, want only the fine constraint", names(res))
	}
	want := map[string]string{
		"ConstraintTemplate regoonly":           "no K8sNativeValidation (CEL) code; its Rego runs only in Gatekeeper; constraints not converted: RegoOnly/a, RegoOnly/b",
		"ConstraintTemplate reservedvariable":   `variable name "namespace" is not a CEL identifier or is a CEL reserved word`,
		"ConstraintTemplate badexpression":      "undeclared reference to 'params'",
		"constraint NoSuchKind/e":               "no ConstraintTemplate among the inputs defines kind NoSuchKind",
		"AztenantRoleAssignment/generated-only": "source Generated",
		"AztenantRoleAssignment/audit-only":     "name no enforcement point vap.k8s.io",
		"AztenantRoleAssignment/unknown-match":  `unknown field "kindz"`,
	}
	if len(res.Unsupported) != len(want) {
		t.Errorf("%d reported, want %d: %v", len(res.Unsupported), len(want), res.Unsupported)
	}
	for subject, reason := range want {
		found := false
		for _, u := range res.Unsupported {
			if msg := u.Error(); strings.Contains(msg, subject) && strings.Contains(msg, reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("no report naming %q with %q in %v", subject, reason, res.Unsupported)
		}
	}

	var out bytes.Buffer
	if err := res.WriteYAML(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "# Not converted to ValidatingAdmissionPolicy:\n#   ") {
		t.Errorf("the YAML does not start by saying what it leaves out:\n%s", out.String())
	}

	tmpl := byName(t, tmpls, "reservedvariable")
	_, _, err = vap.Convert(tmpl, constraints[2])
	var u *vap.UnsupportedError
	if !errors.As(err, &u) || u.Template != "reservedvariable" {
		t.Errorf("Convert: %v, want an *UnsupportedError for the template", err)
	}
}

// A constraint's match becomes rules, conditions and selectors that admit
// the same requests Gatekeeper's match does.
func TestMatch(t *testing.T) {
	tmpls, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	_, cs := decode(t, constraint("AztenantAllowedLocations", "scoped", `  enforcementAction: warn
  match:
    scope: Namespaced
    namespaces: ["team-*", "shared"]
    excludedNamespaces: ["team-x"]
    name: "web-*"
    labelSelector:
      matchLabels: {tier: web}
    namespaceSelector:
      matchLabels: {env: prod}
    kinds:
      - apiGroups: [storage.aztenant.io]
        kinds: [StorageAccount]
      - apiGroups: [cache.aztenant.io]
        kinds: ["*"]
`))
	p, b, err := vap.Convert(byName(t, tmpls, "aztenantallowedlocations"), cs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Spec.ValidationActions; !reflect.DeepEqual(got, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}) {
		t.Errorf("warn became %v", got)
	}
	if mr := b.Spec.MatchResources; mr == nil || mr.ObjectSelector.MatchLabels["tier"] != "web" || mr.NamespaceSelector.MatchLabels["env"] != "prod" {
		t.Errorf("selectors not carried to the binding: %+v", mr)
	}
	var groups []string
	for _, r := range p.Spec.MatchConstraints.ResourceRules {
		groups = append(groups, r.APIGroups...)
		if *r.Scope != admissionregistrationv1.NamespacedScope {
			t.Errorf("scope %v, want Namespaced", *r.Scope)
		}
	}
	if !reflect.DeepEqual(groups, []string{"storage.aztenant.io", "cache.aztenant.io"}) {
		t.Errorf("rules cover groups %v", groups)
	}

	type req struct {
		group, kind, namespace, name string
		want                         bool
	}
	for _, r := range []req{
		{"storage.aztenant.io", "StorageAccount", "team-a", "web-1", true},
		{"cache.aztenant.io", "Redis", "shared", "web-cache", true},
		{"storage.aztenant.io", "BlobContainer", "team-a", "web-1", false},  // kind not listed
		{"storage.aztenant.io", "StorageAccount", "team-x", "web-1", false}, // excluded
		{"storage.aztenant.io", "StorageAccount", "other", "web-1", false},  // not in namespaces
		{"storage.aztenant.io", "StorageAccount", "team-a", "db-1", false},  // name glob
		{"storage.aztenant.io", "StorageAccount", "team-a.b", "web-1", true},
	} {
		if got := matches(t, p.Spec.MatchConditions, r.group, r.kind, r.namespace, r.name); got != r.want {
			t.Errorf("%s %s %s/%s matched %v, want %v", r.group, r.kind, r.namespace, r.name, got, r.want)
		}
	}
}

// Parameters of any JSON shape are inlined as a CEL value equal to them.
func TestParametersRoundTrip(t *testing.T) {
	tmpls, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	_, cs := decode(t, constraint("AztenantAllowedLocations", "odd", `  parameters:
    locations: ["west\"europe", "line\nbreak", "ünïcode", "tab\t"]
    nested: {a: [1, 2.5, true, null, {b: "c"}], empty: [], none: {}}
    count: 3
    ratio: 0.25
    big: 1e300
`))
	p, _, err := vap.Convert(byName(t, tmpls, "aztenantallowedlocations"), cs[0])
	if err != nil {
		t.Fatal(err)
	}
	env, err := cel.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(variable(p, "params"))
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	val, _, err := prg.Eval(cel.NoVars())
	if err != nil {
		t.Fatal(err)
	}
	got, err := val.ConvertToNative(reflect.TypeFor[map[string]any]())
	if err != nil {
		t.Fatal(err)
	}
	want := cs[0].Object["spec"].(map[string]any)["parameters"]
	if !reflect.DeepEqual(normalize(got), want) {
		t.Errorf("params evaluate to\n%#v\nwant\n%#v", normalize(got), want)
	}
}

// normalize turns CEL's native values (maps and lists of ref.Val) into plain
// Go values.
func normalize(v any) any {
	type native interface {
		ConvertToNative(reflect.Type) (any, error)
		Value() any
	}
	switch x := v.(type) {
	case types.Null, structpb.NullValue:
		return nil
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case map[any]any:
		out := map[string]any{}
		for k, e := range x {
			out[k.(string)] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case native:
		if m, err := x.ConvertToNative(reflect.TypeFor[map[string]any]()); err == nil {
			return normalize(m)
		}
		if l, err := x.ConvertToNative(reflect.TypeFor[[]any]()); err == nil {
			return normalize(l)
		}
		return normalize(x.Value())
	}
	return v
}

// matches evaluates the policy's match conditions for a CREATE request.
func matches(t *testing.T, conds []admissionregistrationv1.MatchCondition, group, kind, namespace, name string) bool {
	t.Helper()
	env, err := cel.NewEnv(cel.Variable("request", cel.DynType), cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{
		"request": map[string]any{
			"kind":      map[string]any{"group": group, "kind": kind},
			"resource":  map[string]any{"group": group, "resource": strings.ToLower(kind) + "s"},
			"namespace": namespace, "name": name,
		},
		"object":    map[string]any{"metadata": map[string]any{"name": name, "namespace": namespace}},
		"oldObject": nil,
	}
	for _, c := range conds {
		ast, iss := env.Compile(c.Expression)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", c.Name, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(vars)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if out.Value() != true {
			return false
		}
	}
	return true
}

func constraint(kind, name, spec string) string {
	return "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n" + spec
}

func decode(t *testing.T, docs ...string) ([]*templates.ConstraintTemplate, []*unstructured.Unstructured) {
	t.Helper()
	objs, err := policy.DecodeManifests("test", []byte(strings.Join(docs, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	tmpls, constraints, _, err := policy.SplitManifests(objs)
	if err != nil {
		t.Fatal(err)
	}
	return tmpls, constraints
}

func byName(t *testing.T, tmpls []*templates.ConstraintTemplate, name string) *templates.ConstraintTemplate {
	t.Helper()
	for _, tm := range tmpls {
		if tm.GetName() == name {
			return tm
		}
	}
	t.Fatalf("no template %s", name)
	return nil
}

func find(t *testing.T, res *vap.Result, constraint string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	for _, p := range res.Pairs {
		if p.Policy.Annotations[vap.ConstraintAnnotation] == constraint {
			return p.Policy
		}
	}
	t.Fatalf("no policy for %s among %v", constraint, names(res))
	return nil
}

func variable(p *admissionregistrationv1.ValidatingAdmissionPolicy, name string) string {
	for _, v := range p.Spec.Variables {
		if v.Name == name {
			return v.Expression
		}
	}
	return ""
}

func names(res *vap.Result) []string {
	var out []string
	for _, p := range res.Pairs {
		out = append(out, p.Policy.Name)
	}
	return out
}

// A TokenRequest reaches admission only as the serviceaccounts/token
// subresource, which resources "*" does not match: a constraint whose kinds
// name it gets a rule for the subresource; one matching every kind does
// not, as Gatekeeper's webhook is not registered for it by default.
func TestSubresourceKinds(t *testing.T) {
	tmpls, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := byName(t, tmpls, "aztenantreservedserviceaccount")
	token := func(p *admissionregistrationv1.ValidatingAdmissionPolicy) bool {
		for _, r := range p.Spec.MatchConstraints.ResourceRules {
			if reflect.DeepEqual(r.APIGroups, []string{""}) && reflect.DeepEqual(r.Resources, []string{"serviceaccounts/token"}) {
				return true
			}
		}
		return false
	}
	_, cs := decode(t,
		constraint("AztenantReservedServiceAccount", "by-kind", "  match:\n    kinds:\n      - apiGroups: [\"\"]\n        kinds: [Pod]\n      - apiGroups: [authentication.k8s.io]\n        kinds: [TokenRequest]\n"),
		constraint("AztenantReservedServiceAccount", "by-group", "  match:\n    kinds:\n      - apiGroups: [authentication.k8s.io]\n        kinds: [\"*\"]\n"),
		constraint("AztenantReservedServiceAccount", "any-group", "  match:\n    kinds:\n      - apiGroups: [\"*\"]\n        kinds: [TokenRequest]\n"),
		constraint("AztenantReservedServiceAccount", "everything", "  match:\n    kinds:\n      - apiGroups: [\"*\"]\n        kinds: [\"*\"]\n"),
		constraint("AztenantReservedServiceAccount", "no-match", ""),
		constraint("AztenantReservedServiceAccount", "pods", "  match:\n    kinds:\n      - apiGroups: [\"\"]\n        kinds: [Pod]\n"),
	)
	want := map[string]bool{"by-kind": true, "by-group": true, "any-group": true, "everything": false, "no-match": false, "pods": false}
	for _, c := range cs {
		p, _, err := vap.Convert(tmpl, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := token(p); got != want[c.GetName()] {
			t.Errorf("%s: serviceaccounts/token rule %v, want %v: %+v", c.GetName(), got, want[c.GetName()], p.Spec.MatchConstraints.ResourceRules)
		}
	}
	if !matches(t, mustConvert(t, tmpl, cs[0]).Spec.MatchConditions, "authentication.k8s.io", "TokenRequest", "team-a", "aztenant-provisioner") {
		t.Error("the kinds condition does not admit a TokenRequest")
	}
}

func mustConvert(t *testing.T, tmpl *templates.ConstraintTemplate, c *unstructured.Unstructured) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	p, _, err := vap.Convert(tmpl, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
