package tenancy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ConditionResourceGroupsExclusive is the Tenant condition saying whether its
// resource-group patterns can match groups another Tenant also claims (in a
// subscription both allow). It is informational: the Guard settles such a
// group by the more specific pattern (see closerClaim), and this tells the
// platform team before a developer meets the denial.
const ConditionResourceGroupsExclusive = "ResourceGroupsExclusive"

// Reasons of ConditionResourceGroupsExclusive.
const (
	ReasonNoOverlap             = "NoOverlap"
	ReasonResourceGroupsOverlap = "ResourceGroupsOverlap"
)

// overlapsOf describes each pair of p's and another Tenant's patterns that
// can match the same resource group in a subscription both allow, sorted.
func overlapsOf(p *policy, others []*policy) []string {
	var out []string
	for _, o := range others {
		if o.name() == p.name() || o.tenant.DeletionTimestamp != nil || !sharesSubscription(p, o) {
			continue
		}
		for _, mine := range p.resourceGroups {
			for _, theirs := range o.resourceGroups {
				if !patternsMayOverlap(mine, theirs) {
					continue
				}
				sm, st := patternSpecificity(mine), patternSpecificity(theirs)
				var who string
				switch {
				case mine == theirs:
					who = "both Tenants may use them"
				case sm > st:
					who = "they belong to this Tenant, whose pattern is more specific"
				case st > sm:
					who = fmt.Sprintf("they belong to Tenant %q, whose pattern is more specific", o.name())
				default:
					who = "both Tenants may use them (neither pattern is more specific)"
				}
				out = append(out, fmt.Sprintf("%q and Tenant %q's %q can match the same resource groups: %s", mine, o.name(), theirs, who))
			}
		}
	}
	slices.Sort(out)
	return out
}

func sharesSubscription(a, b *policy) bool {
	for s := range a.subscriptions {
		if _, ok := b.subscriptions[s]; ok {
			return true
		}
	}
	return false
}

// patternsMayOverlap reports whether two lower-cased path.Match patterns can
// match a common name. It is exact when either is a plain name and errs
// towards "may" otherwise: the literal prefixes must be compatible (one a
// prefix of the other), and so must the literal suffixes.
func patternsMayOverlap(a, b string) bool {
	if !hasWildcard(a) {
		ok, _ := path.Match(b, a)
		return ok
	}
	if !hasWildcard(b) {
		ok, _ := path.Match(a, b)
		return ok
	}
	pa, pb := literalPrefix(a), literalPrefix(b)
	if !strings.HasPrefix(pa, pb) && !strings.HasPrefix(pb, pa) {
		return false
	}
	sa, sb := literalSuffix(a), literalSuffix(b)
	return strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
}

const wildcards = `*?[\`

func hasWildcard(p string) bool { return strings.ContainsAny(p, wildcards) }

func literalPrefix(p string) string { return p[:strings.IndexAny(p, wildcards)] }

// literalSuffix is what follows the last '*' or '?' when that part has no
// other special character; otherwise nothing is known about the end.
func literalSuffix(p string) string {
	s := p[strings.LastIndexAny(p, "*?")+1:]
	if strings.ContainsAny(s, wildcards) {
		return ""
	}
	return s
}
