package emulator

import (
	"strings"
)

// Well-known full types, lower-cased for comparisons.
const (
	typeSubscription   = "microsoft.resources/subscriptions"
	typeResourceGroup  = "microsoft.resources/resourcegroups"
	typeRoleAssignment = "microsoft.authorization/roleassignments"
	typeRoleDefinition = "microsoft.authorization/roledefinitions"
)

// step is one addressable level of an ARM path: a subscription, a resource group, a provider
// resource or a child resource.
type step struct {
	id       string // the path up to and including this step's name, request casing
	fullType string // e.g. Microsoft.Storage/storageAccounts/blobServices, request casing
	name     string
}

func (s step) key() string     { return strings.ToLower(s.id) }
func (s step) typeKey() string { return strings.ToLower(s.fullType) }

// armPath is a parsed ARM request path. ARM matches paths case-insensitively, and clients
// disagree on casing ("resourcegroups" vs "resourceGroups"), so only comparisons lower-case.
type armPath struct {
	tenantLevel bool   // path starts with /providers (no subscription)
	steps       []step // addressable levels in order
	tail        []string
}

// parseARMPath splits a path into steps and a tail (segments after the last complete step:
// a collection name, an action, or a provider registration). Empty segments are dropped so
// that SDK calls with a scope starting with "/" ("//subscriptions/...") still resolve.
func parseARMPath(p string) armPath {
	segs := make([]string, 0, 16)
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	var ap armPath
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
		ap.steps = append(ap.steps, step{id: prefix, fullType: fullType, name: name})
		i += n
	}
	switch {
	case len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions"):
		add("Microsoft.Resources/subscriptions", segs[1], 2)
		if i+1 < len(segs) && strings.EqualFold(segs[i], "resourcegroups") {
			add("Microsoft.Resources/resourceGroups", segs[i+1], 2)
		}
	case len(segs) >= 1 && strings.EqualFold(segs[0], "providers"):
		ap.tenantLevel = true
	}
	for i < len(segs) {
		if strings.EqualFold(segs[i], "providers") {
			if i+3 >= len(segs) {
				break
			}
			add(segs[i+1]+"/"+segs[i+2], segs[i+3], 4)
			continue
		}
		last := len(ap.steps) - 1
		if last < 0 || i+1 >= len(segs) {
			break
		}
		lt := ap.steps[last].typeKey()
		if lt == typeSubscription || lt == typeResourceGroup {
			break // only provider resources have child types
		}
		add(ap.steps[last].fullType+"/"+segs[i], segs[i+1], 2)
	}
	ap.tail = segs[i:]
	return ap
}

// last returns the deepest step, or a zero step for tenant-level or empty paths.
func (ap armPath) last() step {
	if len(ap.steps) == 0 {
		return step{}
	}
	return ap.steps[len(ap.steps)-1]
}

// parent returns the step that contains the last one.
func (ap armPath) parent() step {
	if len(ap.steps) < 2 {
		return step{}
	}
	return ap.steps[len(ap.steps)-2]
}

func (ap armPath) subscription() string {
	if len(ap.steps) > 0 && ap.steps[0].typeKey() == typeSubscription {
		return ap.steps[0].name
	}
	return ""
}

func (ap armPath) resourceGroup() string {
	if len(ap.steps) > 1 && ap.steps[1].typeKey() == typeResourceGroup {
		return ap.steps[1].name
	}
	return ""
}

// lastName returns the last path segment of an ARM ID (the GUID of a role definition ID).
func lastName(id string) string {
	id = strings.TrimSuffix(id, "/")
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// normalizeScope turns "subscriptions/x", "/subscriptions/x/" or "//subscriptions/x" into
// "/subscriptions/x" (request casing kept).
func normalizeScope(s string) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' })
	return "/" + strings.Join(parts, "/")
}

// withinScope reports whether id (lower-cased) is scope or lies below it.
func withinScope(id, scope string) bool {
	if scope == "/" || scope == "" {
		return true
	}
	return id == scope || (strings.HasPrefix(id, scope) && len(id) > len(scope) && id[len(scope)] == '/')
}
