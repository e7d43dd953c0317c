package policy

import (
	"context"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator/reader"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

var singleEngines = []Engine{EngineCEL, EngineRego}

func readLibraryObject(t *testing.T, p string) *unstructured.Unstructured {
	t.Helper()
	u, err := reader.ReadObject(Library(), p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return u
}

func messages(vs []Violation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Message)
	}
	return out
}

// TestSamplesEnginesAgree evaluates every sample with its constraint on the
// CEL driver alone and the Rego driver alone: allowed samples pass,
// disallowed ones are denied, and both engines say exactly the same.
func TestSamplesEnginesAgree(t *testing.T) {
	ctx := context.Background()
	constraints, err := fs.Glob(Library(), "*/samples/*/constraint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(constraints) < 7 {
		t.Fatalf("found %d sample constraints, want at least 7", len(constraints))
	}
	examples := 0
	for _, cp := range constraints {
		dir := path.Dir(cp)
		c := readLibraryObject(t, cp)
		files, err := fs.Glob(Library(), dir+"/example_*.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			examples++
			obj := readLibraryObject(t, f)
			t.Run(strings.TrimSuffix(f, ".yaml"), func(t *testing.T) {
				got := map[Engine][]string{}
				for _, e := range append(singleEngines, EngineDefault) {
					vs, err := Evaluate(ctx, []*unstructured.Unstructured{c, obj}, nil, WithEngine(e))
					if err != nil {
						t.Fatalf("%s: %v", e, err)
					}
					got[e] = messages(vs)
				}
				allowed := strings.HasPrefix(path.Base(f), "example_allowed")
				if allowed && len(got[EngineCEL]) != 0 {
					t.Errorf("allowed sample denied: %q", got[EngineCEL])
				}
				if !allowed && len(got[EngineCEL]) == 0 {
					t.Errorf("disallowed sample admitted")
				}
				if !reflect.DeepEqual(got[EngineCEL], got[EngineRego]) {
					t.Errorf("engines disagree:\n CEL:  %q\n Rego: %q", got[EngineCEL], got[EngineRego])
				}
				if !reflect.DeepEqual(got[EngineCEL], got[EngineDefault]) {
					t.Errorf("default engine is not CEL:\n CEL:     %q\n default: %q", got[EngineCEL], got[EngineDefault])
				}
			})
		}
	}
	if examples < 40 {
		t.Errorf("ran %d samples, want at least 40", examples)
	}
}

func namespace(name string, labels, annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations},
	}
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func inNamespace(u *unstructured.Unstructured, ns string) *unstructured.Unstructured {
	c := u.DeepCopy()
	c.SetNamespace(ns)
	return c
}

const (
	sub1 = "00000000-0000-0000-0000-000000000001"
	sub3 = "00000000-0000-0000-0000-000000000003"
)

// TestNamespaceDrivenRules passes Namespace objects, as Gatekeeper's webhook
// and audit do, so the opt-ins on Namespaces are exercised on both engines.
func TestNamespaceDrivenRules(t *testing.T) {
	ctx := context.Background()
	namespaces := []*corev1.Namespace{
		namespace("open", nil, map[string]string{"aztenant.io/allow-public-network": "true"}),
		namespace("almost", nil, map[string]string{"aztenant.io/allow-public-network": "yes"}),
		namespace("closed", nil, nil),
		namespace("team-c", nil, map[string]string{
			"aztenant.io/allowed-subscriptions":   sub3,
			"aztenant.io/allowed-resource-groups": " Team-C-*, legacy-data ,",
		}),
		namespace("team-d", nil, nil),
		namespace("migration", map[string]string{"aztenant.io/allow-reconcile-annotations": "true"}, nil),
		// An annotation is not a label: no opt-in.
		namespace("annotated", nil, map[string]string{"aztenant.io/allow-reconcile-annotations": "true"}),
	}

	publicNetwork := readLibraryObject(t, "publicnetworkaccess/samples/deny-public-network/constraint.yaml")
	reconcileAnnotations := readLibraryObject(t, "reconcileannotations/samples/restrict-reconcile-annotations/constraint.yaml")
	scopes := object(t, `
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: AztenantAllowedScopes
metadata:
  name: tenant-scopes
spec:
  match:
    kinds:
      - apiGroups: ["resources.aztenant.io", "storage.aztenant.io"]
        kinds: ["*"]
  parameters:
    subscriptions: ["`+sub1+`"]
`)

	storage := object(t, `
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccount
metadata:
  name: data
spec:
  owner:
    name: rg
  location: westeurope
  kind: StorageV2
  sku:
    name: Standard_LRS
  allowBlobPublicAccess: true
`)
	legacy := object(t, `
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccount
metadata:
  name: legacy
spec:
  owner:
    armId: /subscriptions/`+sub3+`/resourceGroups/LEGACY-DATA
  location: westeurope
  kind: StorageV2
  sku:
    name: Standard_LRS
  publicNetworkAccess: Disabled
`)
	other := object(t, `
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccount
metadata:
  name: other
spec:
  owner:
    armId: /subscriptions/`+sub3+`/resourceGroups/other
  location: westeurope
  kind: StorageV2
  sku:
    name: Standard_LRS
  publicNetworkAccess: Disabled
`)
	group := object(t, `
apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata:
  name: team-c-apps
  annotations:
    aztenant.io/adopt: "true"
spec:
  location: westeurope
`)

	const optIn = `, or opt namespace %s in with the annotation aztenant.io/allow-public-network: "true"`
	cases := []struct {
		name       string
		constraint *unstructured.Unstructured
		obj        *unstructured.Unstructured
		want       []string
	}{
		{"public network: opted-in namespace", publicNetwork, inNamespace(storage, "open"), nil},
		{"public network: namespace without opt-in", publicNetwork, inNamespace(storage, "closed"), []string{
			"StorageAccount data allows public network access (publicNetworkAccess unset, which Azure treats as Enabled); set it to Disabled" + strings.Replace(optIn, "%s", "closed", 1),
		}},
		{"public network: opt-in value is not true", publicNetwork, inNamespace(storage, "almost"), []string{
			"StorageAccount data allows public network access (publicNetworkAccess unset, which Azure treats as Enabled); set it to Disabled" + strings.Replace(optIn, "%s", "almost", 1),
		}},
		{"public network: Namespace unknown", publicNetwork, inNamespace(storage, "unknown"), []string{
			"StorageAccount data allows public network access (publicNetworkAccess unset, which Azure treats as Enabled); set it to Disabled" + strings.Replace(optIn, "%s", "unknown", 1),
		}},
		{"scopes: namespace annotations allow subscription and group", scopes, inNamespace(legacy, "team-c"), nil},
		{"scopes: prefix from namespace annotation", scopes, inNamespace(group, "team-c"), nil},
		{"scopes: group not in namespace annotation", scopes, inNamespace(other, "team-c"), []string{
			"StorageAccount other uses resource group other, which namespace team-c may not use; allowed resource groups: [team-c-*, legacy-data]",
		}},
		{"scopes: namespace without annotations", scopes, inNamespace(legacy, "team-d"), []string{
			"StorageAccount legacy uses resource group LEGACY-DATA, which namespace team-d may not use; allowed resource groups: []",
			"StorageAccount legacy uses subscription " + sub3 + ", which namespace team-d may not use; allowed subscriptions: [" + sub1 + "]",
		}},
		{"annotations: labelled namespace", reconcileAnnotations, inNamespace(group, "migration"), nil},
		{"annotations: annotation instead of label", reconcileAnnotations, inNamespace(group, "annotated"), []string{
			"ResourceGroup team-c-apps sets aztenant.io/adopt, which namespace annotated may not use; list it in allowedNamespaces or label it aztenant.io/allow-reconcile-annotations=true",
		}},
		{"annotations: plain namespace", reconcileAnnotations, inNamespace(group, "closed"), []string{
			"ResourceGroup team-c-apps sets aztenant.io/adopt, which namespace closed may not use; list it in allowedNamespaces or label it aztenant.io/allow-reconcile-annotations=true",
		}},
	}
	for _, e := range singleEngines {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				vs, err := Evaluate(ctx, []*unstructured.Unstructured{tc.constraint, tc.obj}, namespaces, WithEngine(e))
				if err != nil {
					t.Fatal(err)
				}
				if got := messages(vs); !equality.Semantic.DeepEqual(got, tc.want) {
					t.Errorf("violations:\n got  %q\n want %q", got, tc.want)
				}
				for _, v := range vs {
					if v.Constraint != tc.constraint.GetKind()+"/"+tc.constraint.GetName() || v.Object != "StorageAccount "+tc.obj.GetNamespace()+"/"+tc.obj.GetName() && v.Object != "ResourceGroup "+tc.obj.GetNamespace()+"/"+tc.obj.GetName() {
						t.Errorf("violation names %q on %q", v.Constraint, v.Object)
					}
				}
			})
		}
	}
}

// TestEvaluateMixedInput feeds Evaluate what `aztenant policy test` reads
// from files: constraints and objects together, Namespaces apart.
func TestEvaluateMixedInput(t *testing.T) {
	ctx := context.Background()
	objs := []*unstructured.Unstructured{
		readLibraryObject(t, "roleassignment/samples/roleassignment-guard/constraint.yaml"),
		readLibraryObject(t, "allowedlocations/samples/allowed-locations/constraint.yaml"),
		readLibraryObject(t, "roleassignment/samples/roleassignment-guard/example_allowed.yaml"),
		readLibraryObject(t, "roleassignment/samples/roleassignment-guard/example_disallowed_owner.yaml"),
		readLibraryObject(t, "allowedlocations/samples/allowed-locations/example_disallowed.yaml"),
	}
	vs, err := Evaluate(ctx, objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{
		"RoleAssignment team-a/owner: [AztenantRoleAssignment/roleassignment-guard] RoleAssignment owner grants privileged role Owner (8e3af657-a8ff-443c-a75c-2fe8c4bcb635); allow it with allowedWellKnownNames or allowedRoleDefinitionIds",
		"StorageAccount team-a/teamadata: [AztenantAllowedLocations/allowed-locations] StorageAccount teamadata location eastus is not allowed; allowed locations: [westeurope, northeurope]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, v := range vs {
		if v.EnforcementAction != "deny" {
			t.Errorf("%s: enforcement action %q", v, v.EnforcementAction)
		}
	}
	if _, err := Evaluate(ctx, objs, nil, WithEngine("wasm")); err == nil {
		t.Error("unknown engine accepted")
	}
	tmpls, err := Templates()
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpls) != 19 {
		t.Errorf("library has %d templates, want 19", len(tmpls))
	}
}
