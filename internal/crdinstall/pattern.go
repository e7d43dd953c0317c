package crdinstall

import (
	"fmt"
	"regexp"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CoreGroups are always selected: the operator cannot start without its
// identity and tenancy kinds, and aztenant plan needs its Plans.
var CoreGroups = []string{"identity.aztenant.io", "tenancy.aztenant.io", "plan.aztenant.io"}

// Pattern selects kinds by glob patterns (`*` any run of characters, `?`
// one), case-insensitive, each matching a kind's group/Kind
// (storage.aztenant.io/StorageAccount), its CRD name
// (storageaccounts.storage.aztenant.io) or its group (storage.aztenant.io).
// The zero Pattern selects only the core groups.
type Pattern struct {
	source string
	globs  []*regexp.Regexp
}

// ParsePattern reads patterns separated by `;` or `,` (spaces around them
// are dropped), as the chart's crds.pattern joins them.
func ParsePattern(s string) (Pattern, error) {
	p := Pattern{source: s}
	for _, g := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		if strings.Count(g, "/") > 1 {
			return Pattern{}, fmt.Errorf("crd pattern %q: want group/Kind, a CRD name or a group", g)
		}
		re := strings.NewReplacer(`\*`, `.*`, `\?`, `.`).Replace(regexp.QuoteMeta(g))
		p.globs = append(p.globs, regexp.MustCompile(`(?i)^`+re+`$`))
	}
	return p, nil
}

// String is the pattern as given.
func (p Pattern) String() string { return p.source }

// Selects reports whether the kind gk, whose CRD is named crdName, is
// selected.
func (p Pattern) Selects(gk schema.GroupKind, crdName string) bool {
	for _, g := range CoreGroups {
		if gk.Group == g {
			return true
		}
	}
	full := gk.Group + "/" + gk.Kind
	for _, re := range p.globs {
		if re.MatchString(full) || re.MatchString(crdName) || re.MatchString(gk.Group) {
			return true
		}
	}
	return false
}

// SelectsCRD reports whether crd is selected.
func (p Pattern) SelectsCRD(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return p.Selects(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}, crd.Name)
}

// Select returns the selected CRDs of crds, in their order.
func (p Pattern) Select(crds []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range crds {
		if p.SelectsCRD(c) {
			out = append(out, c)
		}
	}
	return out
}
