package tenancy

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ServeMode is the operator's served-namespaces policy, set by a flag:
//
//	tenants        only namespaces some Tenant selects (the default)
//	all            every namespace; those without a Tenant are unrestricted
//	a,b,c          exactly these namespaces (comma-separated)
//
// It implements flag.Value (and pflag.Value) so cmd/operator can bind it directly.
type ServeMode struct {
	kind       serveKind
	namespaces []string // sorted, for ServeList
}

type serveKind int

const (
	serveTenants serveKind = iota // zero value: the safe default
	serveAll
	serveList
)

// ServeTenants is the default mode: only namespaces selected by a Tenant.
func ServeTenants() ServeMode { return ServeMode{} }

// ServeAll serves every namespace.
func ServeAll() ServeMode { return ServeMode{kind: serveAll} }

// ServeList serves exactly the given namespaces.
func ServeList(namespaces ...string) ServeMode {
	ns := slices.Clone(namespaces)
	slices.Sort(ns)
	return ServeMode{kind: serveList, namespaces: slices.Compact(ns)}
}

// ParseServeMode reads the flag syntax described on ServeMode.
func ParseServeMode(s string) (ServeMode, error) {
	switch strings.TrimSpace(s) {
	case "", "tenants":
		return ServeTenants(), nil
	case "all", "*":
		return ServeAll(), nil
	}
	var names []string
	for part := range strings.SplitSeq(s, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			continue
		}
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return ServeMode{}, fmt.Errorf("served namespaces: %q is not a namespace name: %s", name, strings.Join(errs, "; "))
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return ServeMode{}, fmt.Errorf("served namespaces: %q names no namespace (use tenants, all, or a comma-separated list)", s)
	}
	return ServeList(names...), nil
}

// String renders the mode in flag syntax.
func (m ServeMode) String() string {
	switch m.kind {
	case serveAll:
		return "all"
	case serveList:
		return strings.Join(m.namespaces, ",")
	default:
		return "tenants"
	}
}

// Set parses s into m (flag.Value).
func (m *ServeMode) Set(s string) error {
	parsed, err := ParseServeMode(s)
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

// Type names the flag's value type for pflag.
func (m *ServeMode) Type() string { return "servemode" }

// RequiresTenant reports whether a namespace must have a Tenant to be served
// and to pass the Guard.
func (m ServeMode) RequiresTenant() bool { return m.kind == serveTenants }

// Namespaces returns the explicit list in list mode, nil otherwise. The
// operator can use it to restrict its cache to these namespaces.
func (m ServeMode) Namespaces() []string {
	if m.kind != serveList {
		return nil
	}
	return slices.Clone(m.namespaces)
}

func (m ServeMode) listed(namespace string) bool {
	_, found := slices.BinarySearch(m.namespaces, namespace)
	return found
}
