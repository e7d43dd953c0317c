package sdk

import (
	"fmt"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// armPath is a resource's URL template taken apart.
type armPath struct {
	scope    model.Scope
	segments []model.Segment // outermost first; the last is the resource itself
	armType  string
}

// parsePath reads the scope, the chain of types and the name parameters from a resource's
// URL template, as ARM lays them out: <scope>/providers/<Namespace>/<type>/<name>[/<type>/<name>]…
func parsePath(path string) (armPath, error) {
	var ap armPath
	lower := strings.ToLower(path)
	i := strings.LastIndex(lower, "/providers/")
	if i < 0 {
		// Resource groups and subscriptions have no provider segment.
		switch {
		case strings.HasPrefix(lower, "/subscriptions/{") && strings.Contains(lower, "}/resourcegroups/{") && strings.HasSuffix(lower, "}"):
			ap.scope = model.ScopeSubscription
			ap.armType = "Microsoft.Resources/resourceGroups"
			ap.segments = []model.Segment{{Type: ap.armType, NameParam: lastParam(path)}}
			return ap, nil
		case strings.HasPrefix(lower, "/subscriptions/{") && strings.Count(lower, "/") == 2:
			ap.scope = model.ScopeTenant
			ap.armType = "Microsoft.Resources/subscriptions"
			ap.segments = []model.Segment{{Type: ap.armType, NameParam: lastParam(path)}}
			return ap, nil
		}
		return ap, fmt.Errorf("path %s has no /providers/ segment", path)
	}
	prefix, rest := lower[:i], path[i+len("/providers/"):]
	switch {
	case prefix == "":
		ap.scope = model.ScopeTenant
	case isParamChain(prefix, "subscriptions"):
		ap.scope = model.ScopeSubscription
	case isParamChain(prefix, "subscriptions", "resourcegroups"):
		ap.scope = model.ScopeResourceGroup
	case strings.HasPrefix(prefix, "/{") && strings.Count(prefix, "/") == 1:
		ap.scope = model.ScopeExtension
	case isResourcePath(prefix):
		// An extension resource of one type of resource, whose client spells that type out
		// (a cluster extension: .../managedClusters/{clusterName}/providers/Microsoft.KubernetesConfiguration/extensions/{name},
		// its provider and type fixed by pathParams): the same shape as /{scope}, its
		// owners named by the config's extension.owners.
		ap.scope = model.ScopeExtension
	default:
		return ap, fmt.Errorf("path %s: scope %s is not a tenant, subscription, resource group or {scope}", path, path[:i])
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || len(parts)%2 == 0 {
		return ap, fmt.Errorf("path %s does not end in a resource name", path)
	}
	typ := parts[0]
	for j := 1; j < len(parts); j += 2 {
		if isParam(parts[j]) {
			return ap, fmt.Errorf("path %s: the type segment %s is a parameter; fix it with pathParams", path, parts[j])
		}
		typ += "/" + parts[j]
		seg := model.Segment{Type: typ}
		if isParam(parts[j+1]) {
			seg.NameParam = strings.Trim(parts[j+1], "{}")
		} else {
			seg.FixedName = parts[j+1]
		}
		ap.segments = append(ap.segments, seg)
	}
	ap.armType = typ
	return ap, nil
}

// isResourcePath: prefix is a resource of a resource group with its provider and type
// literal, /subscriptions/{x}/resourcegroups/{y}/providers/<Namespace>/<type>/{name}[/<type>/{name}]….
func isResourcePath(prefix string) bool {
	const rg = "/providers/"
	i := strings.Index(prefix, rg)
	if i < 0 || !isParamChain(prefix[:i], "subscriptions", "resourcegroups") {
		return false
	}
	parts := strings.Split(prefix[i+len(rg):], "/")
	if len(parts) < 3 || len(parts)%2 == 0 {
		return false
	}
	for j := 1; j < len(parts); j += 2 {
		if isParam(parts[j]) || !isParam(parts[j+1]) {
			return false
		}
	}
	return true
}

// isParamChain: prefix is /a/{x}/b/{y} for the given literal names a, b.
func isParamChain(prefix string, names ...string) bool {
	parts := strings.Split(strings.TrimPrefix(prefix, "/"), "/")
	if len(parts) != 2*len(names) {
		return false
	}
	for i, n := range names {
		if parts[2*i] != n || !isParam(parts[2*i+1]) {
			return false
		}
	}
	return true
}

func isParam(s string) bool { return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") }

func lastParam(path string) string {
	m := pathParam.FindAllStringSubmatch(path, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// scopeOwner is the ARM type an owner reference names when the resource has no named parent.
func scopeOwner(s model.Scope) string {
	switch s {
	case model.ScopeResourceGroup:
		return "Microsoft.Resources/resourceGroups"
	case model.ScopeSubscription:
		return "Microsoft.Resources/subscriptions"
	}
	return ""
}
