package armpath

import (
	"strings"
)

// Well-known full types, lower-cased for comparisons.
const (
	TypeSubscription   = "microsoft.resources/subscriptions"
	TypeResourceGroup  = "microsoft.resources/resourcegroups"
	TypeRoleAssignment = "microsoft.authorization/roleassignments"
	TypeRoleDefinition = "microsoft.authorization/roledefinitions"
)

// Step is one addressable level of an ARM path: a subscription, a resource group, a provider
// resource or a child resource.
type Step struct {
	ID       string // the path up to and including this step's name, request casing
	FullType string // e.g. Microsoft.Storage/storageAccounts/blobServices, request casing
	Name     string
}

// Key is the lower-cased ID, as the emulator indexes resources.
func (s Step) Key() string { return strings.ToLower(s.ID) }

// TypeKey is the lower-cased full type.
func (s Step) TypeKey() string { return strings.ToLower(s.FullType) }

// Path is a parsed ARM request path. ARM matches paths case-insensitively, and clients
// disagree on casing ("resourcegroups" vs "resourceGroups"), so only comparisons lower-case.
type Path struct {
	TenantLevel bool   // path starts with /providers (no subscription)
	Steps       []Step // addressable levels in order
	Tail        []string
}

// Parse splits a path into steps and a tail (segments after the last complete step:
// a collection name, an action, or a provider registration). Empty segments are dropped so
// that SDK calls with a scope starting with "/" ("//subscriptions/...") still resolve.
func Parse(p string) Path {
	segs := make([]string, 0, 16)
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	var ap Path
	i := 0
	prefix := ""
	// ARM answers with canonical keywords (resourceGroups, providers) whatever the
	// request's casing; names and types keep the casing they were sent with.
	add := func(fullType, name string, n int) {
		parts := append([]string(nil), segs[i:i+n]...)
		switch {
		case strings.EqualFold(parts[0], "subscriptions"):
			parts[0] = "subscriptions"
		case strings.EqualFold(parts[0], "resourcegroups"):
			parts[0] = "resourceGroups"
		case strings.EqualFold(parts[0], "providers"):
			parts[0] = "providers"
		}
		prefix += "/" + strings.Join(parts, "/")
		ap.Steps = append(ap.Steps, Step{ID: prefix, FullType: fullType, Name: name})
		i += n
	}
	switch {
	case len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions"):
		add("Microsoft.Resources/subscriptions", segs[1], 2)
		if i+1 < len(segs) && strings.EqualFold(segs[i], "resourcegroups") {
			add("Microsoft.Resources/resourceGroups", segs[i+1], 2)
		}
	case len(segs) >= 1 && strings.EqualFold(segs[0], "providers"):
		ap.TenantLevel = true
	}
	for i < len(segs) {
		if strings.EqualFold(segs[i], "providers") {
			if i+3 >= len(segs) {
				break
			}
			add(segs[i+1]+"/"+segs[i+2], segs[i+3], 4)
			continue
		}
		last := len(ap.Steps) - 1
		if last < 0 || i+1 >= len(segs) {
			break
		}
		lt := ap.Steps[last].TypeKey()
		if lt == TypeSubscription || lt == TypeResourceGroup {
			break // only provider resources have child types
		}
		add(ap.Steps[last].FullType+"/"+segs[i], segs[i+1], 2)
	}
	ap.Tail = segs[i:]
	return ap
}

// Last returns the deepest step, or a zero step for tenant-level or empty paths.
func (ap Path) Last() Step {
	if len(ap.Steps) == 0 {
		return Step{}
	}
	return ap.Steps[len(ap.Steps)-1]
}

// Parent returns the step that contains the last one.
func (ap Path) Parent() Step {
	if len(ap.Steps) < 2 {
		return Step{}
	}
	return ap.Steps[len(ap.Steps)-2]
}

// Subscription is the subscription ID of the path, "" for a tenant-level one.
func (ap Path) Subscription() string {
	if len(ap.Steps) > 0 && ap.Steps[0].TypeKey() == TypeSubscription {
		return ap.Steps[0].Name
	}
	return ""
}

// ResourceGroup is the resource group's name, "" above one.
func (ap Path) ResourceGroup() string {
	if len(ap.Steps) > 1 && ap.Steps[1].TypeKey() == TypeResourceGroup {
		return ap.Steps[1].Name
	}
	return ""
}

// LastName returns the last path segment of an ARM ID (the GUID of a role definition ID).
func LastName(id string) string {
	id = strings.TrimSuffix(id, "/")
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// NormalizeScope turns "subscriptions/x", "/subscriptions/x/" or "//subscriptions/x" into
// "/subscriptions/x" (request casing kept).
func NormalizeScope(s string) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' })
	return "/" + strings.Join(parts, "/")
}

// WithinScope reports whether id (lower-cased) is scope or lies below it.
func WithinScope(id, scope string) bool {
	if scope == "/" || scope == "" {
		return true
	}
	return id == scope || (strings.HasPrefix(id, scope) && len(id) > len(scope) && id[len(scope)] == '/')
}
