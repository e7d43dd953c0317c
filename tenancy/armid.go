package tenancy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ARMID is a parsed Azure Resource Manager resource ID. Keywords
// ("subscriptions", "resourceGroups", "providers") are matched
// case-insensitively as ARM does; names keep their spelling.
type ARMID struct {
	SubscriptionID string
	// ResourceGroup is empty for IDs at subscription scope.
	ResourceGroup string
	// Provider is the first resource provider namespace ("Microsoft.Storage"),
	// empty for a subscription or resource group ID.
	Provider string
	// Type is the full type of the innermost resource under its provider
	// ("Microsoft.Storage/storageAccounts/blobServices"), empty as Provider is.
	Type string
	// Name is the innermost resource's name (the resource group's for a
	// resource group ID).
	Name string
}

// InvalidARMIDError says a string is not a well-formed ARM resource ID.
type InvalidARMIDError struct {
	ID     string
	Reason string
}

func (e *InvalidARMIDError) Error() string {
	return fmt.Sprintf("%q is not a valid ARM resource ID: %s", e.ID, e.Reason)
}

// ParseARMID parses /subscriptions/{s}[/resourceGroups/{rg}][/providers/{ns}/{type}/{name}...]
// including extension resources (.../providers/{ns}/{type}/{name}/providers/{ns2}/{type2}/{name2}).
// It is strict on purpose: the Guard decides where a request goes from this
// parse, so anything a proxy or ARM could read differently (dot segments,
// empty segments, escapes, query or fragment characters, an ID appended to
// another) is refused.
func ParseARMID(id string) (ARMID, error) {
	bad := func(format string, args ...any) (ARMID, error) {
		return ARMID{}, &InvalidARMIDError{ID: id, Reason: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(id, "/") {
		return bad("it must start with /subscriptions/")
	}
	segs := strings.Split(id[1:], "/")
	for i, s := range segs {
		if err := checkSegment(s); err != "" {
			return bad("segment %d: %s", i+1, err)
		}
	}
	if len(segs) < 2 || !strings.EqualFold(segs[0], "subscriptions") {
		return bad("it must start with /subscriptions/{subscriptionId}")
	}
	if !isGUID(segs[1]) {
		return bad("subscription %q is not a GUID", segs[1])
	}
	out := ARMID{SubscriptionID: segs[1]}
	rest := segs[2:]
	if len(rest) >= 1 && strings.EqualFold(rest[0], "resourceGroups") {
		if len(rest) < 2 {
			return bad("resourceGroups needs a name")
		}
		if err := checkResourceGroupName(rest[1]); err != "" {
			return bad("resource group %q: %s", rest[1], err)
		}
		out.ResourceGroup, out.Name = rest[1], rest[1]
		rest = rest[2:]
	}
	for len(rest) > 0 {
		if !strings.EqualFold(rest[0], "providers") {
			return bad("expected \"providers\", found %q", rest[0])
		}
		if len(rest) < 4 {
			return bad("providers needs a namespace, a type and a name")
		}
		ns := rest[1]
		if !isProviderNamespace(ns) {
			return bad("%q is not a resource provider namespace", ns)
		}
		typ := []string{ns}
		rest = rest[2:]
		// type/name pairs until the next extension "providers" or the end.
		for len(rest) > 0 && !strings.EqualFold(rest[0], "providers") {
			if len(rest) < 2 {
				return bad("type %q has no name", rest[0])
			}
			if !isTypeSegment(rest[0]) {
				return bad("%q is not a resource type", rest[0])
			}
			if strings.EqualFold(rest[0], "subscriptions") && isGUID(rest[1]) && len(rest) > 2 &&
				(strings.EqualFold(rest[2], "resourceGroups") || strings.EqualFold(rest[2], "providers")) {
				return bad("another ID starts inside it at %q", "/"+strings.Join(rest, "/"))
			}
			typ = append(typ, rest[0])
			out.Name = rest[1]
			rest = rest[2:]
		}
		if len(typ) == 1 {
			return bad("provider %q has no resource type", ns)
		}
		if out.Provider == "" {
			out.Provider = ns
		}
		out.Type = strings.Join(typ, "/")
	}
	return out, nil
}

// String renders the canonical form of the parsed scope (subscription and
// resource group only); it is used in messages.
func (a ARMID) scope() string {
	if a.ResourceGroup == "" {
		return "/subscriptions/" + a.SubscriptionID
	}
	return "/subscriptions/" + a.SubscriptionID + "/resourceGroups/" + a.ResourceGroup
}

func checkSegment(s string) string {
	switch {
	case s == "":
		return "empty (double or trailing slash)"
	case s == "." || s == "..":
		return "dot segments are not allowed"
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) && r != ' ' {
			return "control or whitespace character"
		}
		switch r {
		case '?', '#', '%', '\\':
			return fmt.Sprintf("character %q is not allowed", r)
		}
	}
	return ""
}

// checkResourceGroupName applies ARM's naming rule: 1-90 letters, digits,
// underscores, hyphens, periods and parentheses, not ending in a period.
func checkResourceGroupName(s string) string {
	if n := utf8.RuneCountInString(s); n > 90 {
		return "longer than 90 characters"
	}
	if strings.HasSuffix(s, ".") {
		return "ends with a period"
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.()", r) {
			return fmt.Sprintf("character %q is not allowed", r)
		}
	}
	return ""
}

func isGUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// isProviderNamespace accepts dotted names such as Microsoft.Storage or
// Microsoft.ManagedIdentity.
func isProviderNamespace(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isTypeSegment(p) {
			return false
		}
	}
	return true
}

func isTypeSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
