package vap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// internalPrefix starts the names of generated match conditions.
const internalPrefix = "aztenant_internal_"

// match is a constraint's spec.match (Gatekeeper's match schema).
type match struct {
	Kinds []struct {
		APIGroups []string `json:"apiGroups"`
		Kinds     []string `json:"kinds"`
	} `json:"kinds"`
	Namespaces         []string              `json:"namespaces"`
	ExcludedNamespaces []string              `json:"excludedNamespaces"`
	LabelSelector      *metav1.LabelSelector `json:"labelSelector"`
	NamespaceSelector  *metav1.LabelSelector `json:"namespaceSelector"`
	Scope              string                `json:"scope"`
	Name               string                `json:"name"`
	Source             string                `json:"source"`
}

// readMatch decodes spec.match, refusing fields it does not know: a
// selector silently ignored would widen the policy.
func readMatch(c *unstructured.Unstructured) (*match, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(c.Object, "spec", "match")
	if err != nil {
		return nil, err
	}
	m := &match{}
	if !found {
		return m, nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("spec.match: %w", err)
	}
	switch m.Scope {
	case "", "*", "Cluster", "Namespaced":
	default:
		return nil, fmt.Errorf("spec.match.scope %q is not *, Cluster or Namespaced", m.Scope)
	}
	switch m.Source {
	case "", "All", "Original":
	case "Generated":
		return nil, fmt.Errorf("spec.match.source Generated matches only objects Gatekeeper's expansion makes, which the API server never admits")
	default:
		return nil, fmt.Errorf("spec.match.source %q is not All, Original or Generated", m.Source)
	}
	for _, g := range append(append([]string{m.Name}, m.Namespaces...), m.ExcludedNamespaces...) {
		if strings.Contains(strings.TrimSuffix(strings.TrimPrefix(g, "*"), "*"), "*") {
			return nil, fmt.Errorf("spec.match: glob %q may have * only at its start or end", g)
		}
	}
	return m, nil
}

func anyOf(list []string) bool {
	if len(list) == 0 {
		return true
	}
	for _, s := range list {
		if s == "*" {
			return true
		}
	}
	return false
}

// rules are the match constraints: per kinds entry, its API groups and
// every resource (kinds are matched by a condition, since rules name
// resources, which a constraint does not know).
func (m *match) rules(ops []admissionregistrationv1.OperationType) []admissionregistrationv1.NamedRuleWithOperations {
	scope := admissionregistrationv1.AllScopes
	if m.Scope == "Cluster" || m.Scope == "Namespaced" {
		scope = admissionregistrationv1.ScopeType(m.Scope)
	}
	rule := func(groups []string) admissionregistrationv1.NamedRuleWithOperations {
		return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops,
			Rule: admissionregistrationv1.Rule{
				APIGroups: groups, APIVersions: []string{"*"}, Resources: []string{"*"}, Scope: &scope,
			},
		}}
	}
	if len(m.Kinds) == 0 {
		return []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"*"})}
	}
	var out []admissionregistrationv1.NamedRuleWithOperations
	for _, k := range m.Kinds {
		if anyOf(k.APIGroups) {
			out = []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"*"})}
			break
		}
		out = append(out, rule(k.APIGroups))
	}
	// Resources "*" match no subresource: a kind admitted only through one
	// needs a rule of its own. Gatekeeper matches such a request by the
	// object's kind, so a kinds entry naming it (by group or kind) asks for it.
	for _, sk := range subresourceKinds {
		for _, k := range m.Kinds {
			named := contains(k.APIGroups, sk.group) || contains(k.Kinds, sk.kind)
			covers := (anyOf(k.APIGroups) || contains(k.APIGroups, sk.group)) && (anyOf(k.Kinds) || contains(k.Kinds, sk.kind))
			if named && covers {
				r := rule([]string{sk.resourceGroup})
				r.Resources = []string{sk.resource}
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// subresourceKinds are kinds the API server admits only as a subresource of
// another resource, as request.kind names them.
var subresourceKinds = []struct{ group, kind, resourceGroup, resource string }{
	// kubectl create token: the TokenRequest API.
	{"authentication.k8s.io", "TokenRequest", "", "serviceaccounts/token"},
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// conditions express what rules and selectors cannot: kinds, namespace and
// name globs. They read the request as Gatekeeper's match does.
func (m *match) conditions() []admissionregistrationv1.MatchCondition {
	var out []admissionregistrationv1.MatchCondition
	if expr := m.kindsExpression(); expr != "" {
		out = append(out, admissionregistrationv1.MatchCondition{Name: internalPrefix + "match_kinds", Expression: expr})
	}
	// A Namespace is matched by its own name; other cluster-scoped objects
	// always match namespace globs.
	const ns = `(request.resource.group == "" && request.resource.resource == "namespaces" ? request.name : request.namespace)`
	if len(m.Namespaces) > 0 {
		out = append(out, admissionregistrationv1.MatchCondition{
			Name:       internalPrefix + "match_namespaces",
			Expression: fmt.Sprintf(`%s == "" || %s.matches(%s)`, ns, ns, strconv.Quote(globsRegexp(m.Namespaces))),
		})
	}
	if len(m.ExcludedNamespaces) > 0 {
		out = append(out, admissionregistrationv1.MatchCondition{
			Name:       internalPrefix + "match_excluded_namespaces",
			Expression: fmt.Sprintf(`%s == "" || !%s.matches(%s)`, ns, ns, strconv.Quote(globsRegexp(m.ExcludedNamespaces))),
		})
	}
	if m.Name != "" {
		re := strconv.Quote(globsRegexp([]string{m.Name}))
		// A prefix glob also matches a generateName, as in Gatekeeper.
		generate := "false"
		if strings.HasSuffix(m.Name, "*") {
			generate = fmt.Sprintf(`(has(o.metadata.generateName) && string(o.metadata.generateName).matches(%s))`, re)
		}
		out = append(out, admissionregistrationv1.MatchCondition{
			Name: internalPrefix + "match_name",
			Expression: fmt.Sprintf(`[object, oldObject].exists(o, o != null && ((has(o.metadata.name) && string(o.metadata.name).matches(%s)) || %s))`,
				re, generate),
		})
	}
	return out
}

// kindsExpression is empty when the rules already match exactly the kinds
// entries (no entry names kinds).
func (m *match) kindsExpression() string {
	needed := false
	for _, k := range m.Kinds {
		if !anyOf(k.Kinds) {
			needed = true
		}
	}
	if !needed {
		return ""
	}
	var terms []string
	for _, k := range m.Kinds {
		var parts []string
		if !anyOf(k.APIGroups) {
			parts = append(parts, "request.kind.group in "+stringList(k.APIGroups))
		}
		if !anyOf(k.Kinds) {
			parts = append(parts, "request.kind.kind in "+stringList(k.Kinds))
		}
		if len(parts) == 0 {
			return ""
		}
		terms = append(terms, "("+strings.Join(parts, " && ")+")")
	}
	return strings.Join(terms, " || ")
}

func stringList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// globsRegexp is one anchored RE2 pattern matching any of Gatekeeper's
// globs (a * at the start or end matches any characters).
func globsRegexp(globs []string) string {
	alts := make([]string, len(globs))
	for i, g := range globs {
		parts := strings.Split(g, "*")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		alts[i] = strings.Join(parts, ".*")
	}
	return "^(" + strings.Join(alts, "|") + ")$"
}
