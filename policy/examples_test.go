package policy

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/aztenant/aztenant/api"
)

// exampleConstraints are the constraints the demo enforces and docs/policy.md
// and SECURITY.md point users to.
const exampleConstraints = "../examples/policy/constraints.yaml"

// Templates the example constraints leave out, and why (examples/policy
// says the same to its readers).
var notInExamples = map[string]string{
	"AztenantAllowedScopes":               "the Tenant guard bounds subscriptions and resource groups from the Tenants, before any ARM call",
	"AztenantFederatedIdentityCredential": "it needs the cluster's issuer, known only where it runs; the operator enforces it by default (aztenant-default-federation)",
}

// azureGroups are the API groups of every kind that stands for an Azure
// resource (CRD category azure), sorted.
func azureGroups(t *testing.T) []string {
	t.Helper()
	crds, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, crd := range crds {
		if slices.Contains(crd.Spec.Names.Categories, "azure") && !seen[crd.Spec.Group] {
			seen[crd.Spec.Group] = true
			out = append(out, crd.Spec.Group)
		}
	}
	sort.Strings(out)
	return out
}

var generatedGroups = regexp.MustCompile(`(?s)(# BEGIN generated groups[^\n]*\n)(.*?)(\n[ \t]*# END generated groups)`)

// rewriteBlocks replaces every block re matches in the file at path with
// want, or fails naming the test to rerun with -update.
func rewriteBlocks(t *testing.T, path string, re *regexp.Regexp, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, stale := 0, 0
	out := re.ReplaceAllStringFunc(string(data), func(block string) string {
		blocks++
		m := re.FindStringSubmatch(block)
		if m[2] != want {
			stale++
		}
		return m[1] + want + m[3]
	})
	if blocks == 0 {
		t.Fatalf("%s has no block %s", path, re)
	}
	if stale == 0 {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
		return
	}
	t.Errorf("%s: %d of %d generated blocks are stale (go test ./policy -run TestExampleConstraintsMatchTheCRDs -update); want\n%s", path, stale, blocks, want)
}

// The example constraints reach every kind they claim: public network
// access on every kind with such a field, the reconcile annotations and
// unmanaged owners on every Azure kind. The lists are generated from the
// CRDs (make generate runs this with -update), so a new kind is covered
// the day it is generated.
func TestExampleConstraintsMatchTheCRDs(t *testing.T) {
	var kinds strings.Builder
	kinds.WriteString("    kinds:\n")
	seen := map[string]bool{}
	for _, f := range publicAccessFields(t) {
		if key := f.group + "/" + f.kind; !seen[key] {
			seen[key] = true
			fmt.Fprintf(&kinds, "      - apiGroups: [%q]\n        kinds: [%q]\n", f.group, f.kind)
		}
	}
	rewriteBlocks(t, exampleConstraints, generatedKinds, strings.TrimSuffix(kinds.String(), "\n"))

	var groups strings.Builder
	groups.WriteString("    kinds:\n      - apiGroups:\n")
	for _, g := range azureGroups(t) {
		fmt.Fprintf(&groups, "          - %s\n", g)
	}
	groups.WriteString(`        kinds: ["*"]`)
	rewriteBlocks(t, exampleConstraints, generatedGroups, groups.String())
}

func readExampleConstraints(t *testing.T) map[string][]*unstructured.Unstructured {
	t.Helper()
	objs, err := ReadManifests(exampleConstraints)
	if err != nil {
		t.Fatal(err)
	}
	_, constraints, rest, err := SplitManifests(objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) > 0 {
		t.Errorf("%s holds %d objects that are not constraints", exampleConstraints, len(rest))
	}
	byKind := map[string][]*unstructured.Unstructured{}
	for _, c := range constraints {
		byKind[c.GetKind()] = append(byKind[c.GetKind()], c)
	}
	return byKind
}

// matches says whether a constraint's match.kinds names group/kind (or
// every kind of the group).
func matches(t *testing.T, c *unstructured.Unstructured, group, kind string) bool {
	t.Helper()
	entries, _, err := unstructured.NestedSlice(c.Object, "spec", "match", "kinds")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		m, _ := e.(map[string]any)
		groups, _, _ := unstructured.NestedStringSlice(m, "apiGroups")
		ks, _, _ := unstructured.NestedStringSlice(m, "kinds")
		if (slices.Contains(groups, group) || slices.Contains(groups, "*")) && (slices.Contains(ks, kind) || slices.Contains(ks, "*")) {
			return true
		}
	}
	return false
}

// What docs/policy.md and SECURITY.md say the library denies, the example
// constraints (what the demo runs and users copy) enforce: every template
// but the two notInExamples names has a constraint there, every template
// SECURITY.md's table names among them; public network access is matched
// on every kind that has the field; the reconcile annotations (ASO's
// included) and unmanaged owners on every Azure kind.
func TestExampleConstraintsEnableEveryTemplate(t *testing.T) {
	byKind := readExampleConstraints(t)
	tmpls, err := Templates()
	if err != nil {
		t.Fatal(err)
	}
	library := map[string]bool{}
	for _, tmpl := range tmpls {
		kind := tmpl.Spec.CRD.Spec.Names.Kind
		library[kind] = true
		if why, ok := notInExamples[kind]; ok {
			if len(byKind[kind]) > 0 {
				t.Errorf("%s is enabled in %s, but notInExamples says it is not (%s)", kind, exampleConstraints, why)
			}
			continue
		}
		if len(byKind[kind]) == 0 {
			t.Errorf("template %s (%s) has no constraint in %s", tmpl.GetName(), kind, exampleConstraints)
		}
	}
	for kind := range notInExamples {
		if !library[kind] {
			t.Errorf("notInExamples names %s, which is not a template of the library", kind)
		}
	}

	// SECURITY.md's table of Azure-side gaps, and the policy page's table.
	for _, doc := range []struct{ path, from, to string }{
		{"../SECURITY.md", "### Privilege escalation through policy gaps", "\n### "},
		{"../docs/policy.md", "# Policy\n", "\n## "},
	} {
		data, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		start := strings.Index(text, doc.from)
		if start < 0 {
			t.Fatalf("%s has no %q", doc.path, doc.from)
		}
		text = text[start+len(doc.from):]
		if end := strings.Index(text, doc.to); end >= 0 {
			text = text[:end]
		}
		named := regexp.MustCompile("`(Aztenant[A-Za-z]+)`").FindAllStringSubmatch(text, -1)
		if len(named) < 8 {
			t.Fatalf("%s names %d templates in its policy section, want at least 8", doc.path, len(named))
		}
		for _, m := range named {
			if !library[m[1]] {
				t.Errorf("%s names %s, which is not a template of the library", doc.path, m[1])
			} else if _, out := notInExamples[m[1]]; !out && len(byKind[m[1]]) == 0 {
				t.Errorf("%s relies on %s, which %s does not enable", doc.path, m[1], exampleConstraints)
			}
		}
	}

	// "Public network access on every kind with a publicNetworkAccess field".
	for _, f := range publicAccessFields(t) {
		found := false
		for _, c := range byKind["AztenantPublicNetworkAccess"] {
			found = found || matches(t, c, f.group, f.kind)
		}
		if !found {
			t.Errorf("no AztenantPublicNetworkAccess constraint of %s matches %s/%s, which has %s", exampleConstraints, f.group, f.kind, strings.Join(f.path, "."))
		}
	}
	// The annotations and unmanaged owners, on every Azure kind.
	for _, kind := range []string{"AztenantReconcileAnnotations", "AztenantOwnerArmId"} {
		for _, g := range azureGroups(t) {
			found := false
			for _, c := range byKind[kind] {
				found = found || matches(t, c, g, "AnyKind")
			}
			if !found {
				t.Errorf("no %s constraint of %s matches every kind of %s", kind, exampleConstraints, g)
			}
		}
	}
}
