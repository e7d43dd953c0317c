package tenancy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// policy is a Tenant compiled once per generation for the hot path: label
// selector parsed, lists lowered into sets, patterns validated. It is
// immutable after compile and shared between goroutines.
type policy struct {
	tenant *tenancyv1alpha1.Tenant // read-only; callers get DeepCopies

	names       map[string]struct{}
	selector    labels.Selector // labels.Nothing() when the spec has none
	selectorErr error

	subscriptions  map[string]struct{} // lower-case
	resourceGroups []string            // lower-case, valid patterns only
	badPatterns    []string
	locations      map[string]struct{} // normalised; empty = any
	kinds          []kindRule          // empty = any
	shared         []string            // lower-case ARM ID patterns, valid only
	badKinds       []string            // malformed globs: allow nothing
	weight         int
}

// kindRule is one entry of spec.kinds: "Kind" (group empty: any group),
// "Kind.group", or "group/Kind" with globs (glob), all case-insensitive.
type kindRule struct {
	kind, group string // group empty = any group
	glob        bool   // group and kind are lower-case path.Match patterns
}

// parseKindRule reads one entry of spec.kinds; ok is false for a glob that
// path.Match refuses (admission refuses it first), which allows nothing.
func parseKindRule(s string) (r kindRule, ok bool) {
	if group, kind, isGlob := strings.Cut(s, "/"); isGlob {
		r = kindRule{kind: strings.ToLower(kind), group: strings.ToLower(group), glob: true}
		_, errK := path.Match(r.kind, "")
		_, errG := path.Match(r.group, "")
		return r, errK == nil && errG == nil && r.kind != "" && r.group != ""
	}
	kind, group, _ := strings.Cut(s, ".")
	return kindRule{kind: kind, group: group}, true
}

func (r kindRule) matches(gk schema.GroupKind) bool {
	if r.glob {
		okG, _ := path.Match(r.group, strings.ToLower(gk.Group))
		okK, _ := path.Match(r.kind, strings.ToLower(gk.Kind))
		return okG && okK
	}
	return strings.EqualFold(r.kind, gk.Kind) && (r.group == "" || strings.EqualFold(r.group, gk.Group))
}

// KindsName reports whether an entry of a Tenant's spec.kinds names gk. An
// empty list names no kind (though it allows every one): with
// --crd-management=tenants a kind's CRD is installed only when some Tenant
// names it.
func KindsName(kinds []string, gk schema.GroupKind) bool {
	for _, k := range kinds {
		if r, ok := parseKindRule(k); ok && r.matches(gk) {
			return true
		}
	}
	return false
}

func compile(t *tenancyv1alpha1.Tenant) *policy {
	p := &policy{
		tenant:        t,
		names:         make(map[string]struct{}, len(t.Spec.Namespaces)),
		selector:      labels.Nothing(),
		subscriptions: make(map[string]struct{}, len(t.Spec.Subscriptions)),
		locations:     make(map[string]struct{}, len(t.Spec.Locations)),
		weight:        int(t.Spec.Weight),
	}
	if p.weight < 1 {
		p.weight = 1
	}
	for _, n := range t.Spec.Namespaces {
		p.names[n] = struct{}{}
	}
	if t.Spec.NamespaceSelector != nil {
		// An empty selector matches every namespace, as everywhere in Kubernetes.
		sel, err := metav1.LabelSelectorAsSelector(t.Spec.NamespaceSelector)
		if err != nil {
			p.selectorErr = err
		} else {
			p.selector = sel
		}
	}
	for _, s := range t.Spec.Subscriptions {
		p.subscriptions[strings.ToLower(s)] = struct{}{}
	}
	for _, pat := range t.Spec.ResourceGroups {
		lower := strings.ToLower(pat)
		if _, err := path.Match(lower, ""); err != nil {
			// A broken pattern allows nothing: fail closed, and the Tenant
			// controller reports it.
			p.badPatterns = append(p.badPatterns, pat)
			continue
		}
		p.resourceGroups = append(p.resourceGroups, lower)
	}
	for _, r := range t.Spec.SharedResources {
		lower := strings.ToLower(strings.TrimSuffix(r.ARMID, "/"))
		if _, err := path.Match(lower, ""); err != nil {
			p.badPatterns = append(p.badPatterns, r.ARMID)
			continue
		}
		p.shared = append(p.shared, lower)
	}
	for _, l := range t.Spec.Locations {
		p.locations[azurev1alpha1.NormalizeLocation(string(l))] = struct{}{}
	}
	for _, k := range t.Spec.Kinds {
		if r, ok := parseKindRule(k); ok {
			p.kinds = append(p.kinds, r)
		} else {
			p.badKinds = append(p.badKinds, k)
		}
	}
	return p
}

func (p *policy) name() string { return p.tenant.Name }

// selects reports whether the Tenant selects a namespace with these labels.
func (p *policy) selects(namespace string, nsLabels labels.Set) bool {
	if _, ok := p.names[namespace]; ok {
		return true
	}
	return nsLabels != nil && p.selector.Matches(nsLabels)
}

// usesLabels reports whether namespace labels can change this Tenant's selection.
func (p *policy) usesLabels() bool {
	return p.tenant.Spec.NamespaceSelector != nil && p.selectorErr == nil
}

func (p *policy) allowsSubscription(s string) bool {
	_, ok := p.subscriptions[strings.ToLower(s)]
	return ok
}

func (p *policy) allowsResourceGroup(rg string) bool {
	lower := strings.ToLower(rg)
	for _, pat := range p.resourceGroups {
		if ok, _ := path.Match(pat, lower); ok {
			return true
		}
	}
	return false
}

// rgClaim is how specifically the Tenant claims a resource group: the
// specificity of its best pattern matching it, -1 when none does.
func (p *policy) rgClaim(rg string) (specificity int, pattern string) {
	lower := strings.ToLower(rg)
	specificity = -1
	for _, pat := range p.resourceGroups {
		if ok, _ := path.Match(pat, lower); ok {
			if s := patternSpecificity(pat); s > specificity {
				specificity, pattern = s, pat
			}
		}
	}
	return specificity, pattern
}

// patternSpecificity ranks patterns: an exact name above any pattern, then
// the longer literal prefix ("team-a-x-*" above "team-a-*" above "*").
func patternSpecificity(pat string) int {
	if i := strings.IndexAny(pat, `*?[\`); i >= 0 {
		return i
	}
	return len(pat) + 1<<16
}

// shares reports whether id is, or lies under, a resource the Tenant shares
// (spec.sharedResources): each pattern is matched against id and each of its
// ancestors at segment boundaries.
func (p *policy) shares(id string) (pattern string, ok bool) {
	if len(p.shared) == 0 {
		return "", false
	}
	lower := strings.ToLower(strings.TrimSuffix(id, "/"))
	for i := len(lower); i > 0; i = strings.LastIndexByte(lower[:i], '/') {
		prefix := lower[:i]
		for _, pat := range p.shared {
			if m, _ := path.Match(pat, prefix); m {
				return pat, true
			}
		}
	}
	return "", false
}

func (p *policy) allowsLocation(l string) bool {
	if len(p.locations) == 0 {
		return true
	}
	_, ok := p.locations[azurev1alpha1.NormalizeLocation(l)]
	return ok
}

func (p *policy) allowsKind(gk schema.GroupKind) bool {
	if len(p.kinds) == 0 && len(p.badKinds) == 0 {
		return true
	}
	return slices.ContainsFunc(p.kinds, func(r kindRule) bool { return r.matches(gk) })
}

// validationError describes what makes the spec unusable, for the Ready
// condition; "" when the spec is fine.
func (p *policy) validationError() (reason, message string) {
	if p.selectorErr != nil {
		return ReasonInvalidSelector, fmt.Sprintf("namespaceSelector: %v", p.selectorErr)
	}
	if len(p.badPatterns) > 0 {
		return ReasonInvalidPattern, fmt.Sprintf("resourceGroups or sharedResources: malformed patterns %s allow nothing", strings.Join(p.badPatterns, ", "))
	}
	if len(p.badKinds) > 0 {
		return ReasonInvalidPattern, fmt.Sprintf("kinds: malformed patterns %s allow nothing", strings.Join(p.badKinds, ", "))
	}
	return "", ""
}

// ResourceGroupAllowed reports whether t's resourceGroups patterns allow the
// resource group rg, exactly as the Guard decides for reconcilers (onboarding
// uses it so it never creates a group the tenant could not then use).
func ResourceGroupAllowed(t *tenancyv1alpha1.Tenant, rg string) bool {
	return compile(t).allowsResourceGroup(rg)
}

// LocationAllowed reports whether t's locations allow location l.
func LocationAllowed(t *tenancyv1alpha1.Tenant, l string) bool {
	return compile(t).allowsLocation(l)
}
