package policy

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/aztenant/aztenant/api"
)

var update = flag.Bool("update", false, "rewrite the generated lists of policy/library templates from the CRDs")

// publicNetworkAccessTemplate is the template whose kind -> field list is
// generated from the CRDs.
const publicNetworkAccessTemplate = "library/publicnetworkaccess/template.yaml"

// publicAccessField is one field of a kind that allows or denies access
// from public networks, by its path under spec.
type publicAccessField struct {
	group, kind string
	path        []string
}

// publicAccessFields are, from the generated CRDs, every spec field named
// publicNetworkAccess (or publicNetworkAccessFor...: Application Insights
// and Log Analytics have one for ingestion and one for query) outside
// lists, sorted by group, kind and path.
func publicAccessFields(t *testing.T) []publicAccessField {
	t.Helper()
	crds, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var out []publicAccessField
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
			if !ok {
				continue
			}
			var walk func(s apiextensionsv1.JSONSchemaProps, path []string)
			walk = func(s apiextensionsv1.JSONSchemaProps, path []string) {
				for name, p := range s.Properties {
					q := append(append([]string(nil), path...), name)
					if strings.HasPrefix(name, "publicNetworkAccess") {
						out = append(out, publicAccessField{group: crd.Spec.Group, kind: crd.Spec.Names.Kind, path: q})
					}
					walk(p, q)
				}
			}
			walk(spec, nil)
			break // one version's schema: the kinds have one
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return strings.Join(a.path, ".") < strings.Join(b.path, ".")
	})
	return out
}

// renderFields writes the list as the template's map from "group/Kind" to
// the kind's field paths (each a list of segments), indented by indent:
// the same literal is valid CEL and Rego.
func renderFields(fields []publicAccessField, indent string) string {
	var b strings.Builder
	b.WriteString("{\n")
	for i := 0; i < len(fields); {
		key := fields[i].group + "/" + fields[i].kind
		var paths []string
		for ; i < len(fields) && fields[i].group+"/"+fields[i].kind == key; i++ {
			segs := make([]string, len(fields[i].path))
			for k, s := range fields[i].path {
				segs[k] = fmt.Sprintf("%q", s)
			}
			paths = append(paths, "["+strings.Join(segs, ", ")+"]")
		}
		sep := ","
		if i == len(fields) {
			sep = ""
		}
		fmt.Fprintf(&b, "%s  %q: [%s]%s\n", indent, key, strings.Join(paths, ", "), sep)
	}
	b.WriteString(indent + "}")
	return b.String()
}

// generatedBlock is a list between "# BEGIN generated fields" and
// "# END generated fields": from the first "{" to the block's end, indented
// as the line the "{" is on (after "expression: |-" for CEL, "fields := "
// for Rego).
var generatedBlock = regexp.MustCompile(`(?s)(# BEGIN generated fields[^\n]*\n)(.*?)(\n[ \t]*# END generated fields)`)

// The public network access template checks every field of every kind
// whose CRD has one: the list it carries (once for CEL, once for Rego) is
// the CRDs', so a kind added by the generator with such a field is denied
// until it is in the list. go test ./policy -run
// TestPublicNetworkAccessFieldsMatchTheCRDs -update rewrites it.
func TestPublicNetworkAccessFieldsMatchTheCRDs(t *testing.T) {
	fields := publicAccessFields(t)
	if len(fields) < 14 {
		t.Fatalf("found %d publicNetworkAccess fields in the CRDs, want at least 14", len(fields))
	}
	for _, f := range fields {
		if len(f.path) > 2 {
			t.Errorf("%s/%s %s: the template reads paths of at most two segments", f.group, f.kind, strings.Join(f.path, "."))
		}
	}
	// The sample constraint enforces the template on every kind of the list.
	matchConstraint(t, fields)
	data, err := fs.ReadFile(Library(), strings.TrimPrefix(publicNetworkAccessTemplate, "library/"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	var mismatch []string
	out := generatedBlock.ReplaceAllStringFunc(string(data), func(block string) string {
		blocks++
		m := generatedBlock.FindStringSubmatch(block)
		body := m[2]
		open := strings.Index(body, "{")
		if open < 0 {
			mismatch = append(mismatch, "a generated block holds no list:\n"+body)
			return block
		}
		line := body[strings.LastIndex(body[:open], "\n")+1:]
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		want := renderFields(fields, indent)
		if body[open:] != want {
			mismatch = append(mismatch, fmt.Sprintf("block %d is\n%s\nwant\n%s", blocks, body[open:], want))
		}
		return m[1] + body[:open] + want + m[3]
	})
	if blocks != 2 {
		t.Fatalf("%s has %d generated blocks, want 2 (CEL and Rego)", publicNetworkAccessTemplate, blocks)
	}
	if len(mismatch) == 0 {
		return
	}
	if *update {
		if err := os.WriteFile(publicNetworkAccessTemplate, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", publicNetworkAccessTemplate)
		return
	}
	t.Errorf("%s's fields are not the CRDs' (go test ./policy -run %s -update):\n%s", publicNetworkAccessTemplate, t.Name(), strings.Join(mismatch, "\n"))
}

// publicNetworkAccessConstraint is the sample constraint whose match.kinds is
// generated from the same list, one entry per group and kind.
const publicNetworkAccessConstraint = "library/publicnetworkaccess/samples/deny-public-network/constraint.yaml"

var generatedKinds = regexp.MustCompile(`(?s)(# BEGIN generated kinds[^\n]*\n)(.*?)(\n[ \t]*# END generated kinds)`)

func matchConstraint(t *testing.T, fields []publicAccessField) {
	t.Helper()
	var b strings.Builder
	b.WriteString("    kinds:\n")
	seen := map[string]bool{}
	for _, f := range fields {
		if key := f.group + "/" + f.kind; !seen[key] {
			seen[key] = true
			fmt.Fprintf(&b, "      - apiGroups: [%q]\n        kinds: [%q]\n", f.group, f.kind)
		}
	}
	want := strings.TrimSuffix(b.String(), "\n")
	data, err := fs.ReadFile(Library(), strings.TrimPrefix(publicNetworkAccessConstraint, "library/"))
	if err != nil {
		t.Fatal(err)
	}
	m := generatedKinds.FindStringSubmatch(string(data))
	if m == nil {
		t.Fatalf("%s has no generated kinds block", publicNetworkAccessConstraint)
	}
	if m[2] == want {
		return
	}
	if *update {
		out := generatedKinds.ReplaceAllString(string(data), "${1}"+strings.ReplaceAll(want, "$", "$$")+"${3}")
		if err := os.WriteFile(publicNetworkAccessConstraint, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", publicNetworkAccessConstraint)
		return
	}
	t.Errorf("%s does not match every kind of the list (go test ./policy -run %s -update):\n%s\nwant\n%s", publicNetworkAccessConstraint, t.Name(), m[2], want)
}
