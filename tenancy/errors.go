package tenancy

import (
	"fmt"
	"strings"
)

// ConditionReady is the Tenant condition the controller maintains.
const ConditionReady = "Ready"

// Reasons for conditions on objects the guards refuse. They are part of the
// condition vocabulary users see in `kubectl get`.
const (
	ReasonPolicyDenied      = "TenantPolicyDenied"
	ReasonCrossNamespace    = "CrossNamespaceReference"
	ReasonNamespaceConflict = "NamespaceConflict"
	ReasonNoTenant          = "NoTenant"
	ReasonInvalidSelector   = "InvalidSelector"
	ReasonInvalidPattern    = "InvalidPattern"
	ReasonSelected          = "NamespacesSelected"
	// ReasonTenantTerminating: the namespace's Tenant is being deleted; it
	// serves only deletions of the namespace's objects.
	ReasonTenantTerminating = "TenantTerminating"
	// ReasonTerminating is the Ready reason of a Tenant being deleted.
	ReasonTerminating = "Terminating"
)

// Rules a DeniedError can name; they are the Tenant spec fields (plus armID
// and namespaces, which are not configurable) so a user can find what to change.
const (
	RuleSubscriptions  = "subscriptions"
	RuleResourceGroups = "resourceGroups"
	RuleLocations      = "locations"
	RuleKinds          = "kinds"
	// RuleSharedResources: an ARM ID the request refers to lies outside the
	// Tenant's bounds and is not shared (spec.sharedResources).
	RuleSharedResources = "sharedResources"
	RuleARMID           = "armID"
	RuleNamespaces      = "namespaces"
)

// DeniedError says a request falls outside what the namespace's Tenant allows
// (or outside what any served namespace may do). It is terminal: retrying
// cannot help until the object or the Tenant changes.
type DeniedError struct {
	// Rule is the spec field (or built-in check) that refused the request.
	Rule string
	// Message names the rule, the offending value and what is allowed.
	Message string
}

func (e *DeniedError) Error() string { return e.Message }

// Reason is the condition reason for a denial.
func (e *DeniedError) Reason() string { return ReasonPolicyDenied }

func denied(rule, format string, args ...any) *DeniedError {
	return &DeniedError{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// allowedList renders a Tenant list for a message; empty lists mean "any" for
// optional rules and "none" for required ones, so say which.
func allowedList[S ~string](values []S, emptyMeansAny bool) string {
	if len(values) == 0 {
		if emptyMeansAny {
			return "any"
		}
		return "none"
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return strings.Join(out, ", ")
}

// CrossNamespaceError says an object references something in another
// namespace, which the operator never follows.
type CrossNamespaceError struct {
	// Kind and Namespace/Name of the referencing object.
	ObjectKind, ObjectNamespace, ObjectName string
	// RefKind, RefNamespace and RefName identify what it pointed at.
	RefKind, RefNamespace, RefName string
}

func (e *CrossNamespaceError) Error() string {
	obj := e.ObjectName
	if e.ObjectKind != "" {
		obj = e.ObjectKind + " " + obj
	}
	if e.ObjectNamespace == "" {
		return fmt.Sprintf("%s is cluster-scoped and may not reference %s %q in namespace %q",
			obj, e.RefKind, e.RefName, e.RefNamespace)
	}
	return fmt.Sprintf("%s in namespace %q may not reference %s %q in namespace %q: references stay in the object's own namespace",
		obj, e.ObjectNamespace, e.RefKind, e.RefName, e.RefNamespace)
}

// Reason is the condition reason for a cross-namespace reference.
func (e *CrossNamespaceError) Reason() string { return ReasonCrossNamespace }

// ConflictError says several Tenants select the same namespace. The operator
// refuses to guess which one's policy applies.
type ConflictError struct {
	Namespace string
	// Tenants selecting the namespace, sorted.
	Tenants []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("namespace %q is selected by several Tenants (%s); a namespace may belong to one Tenant only",
		e.Namespace, strings.Join(e.Tenants, ", "))
}

// Reason is the condition reason for a conflict.
func (e *ConflictError) Reason() string { return ReasonNamespaceConflict }

// NoTenantError says no Tenant selects the namespace.
type NoTenantError struct {
	Namespace string
}

func (e *NoTenantError) Error() string {
	return fmt.Sprintf("no Tenant selects namespace %q", e.Namespace)
}

// Reason is the condition reason for a namespace without a Tenant.
func (e *NoTenantError) Reason() string { return ReasonNoTenant }

// TerminatingError says the namespace's Tenant is being deleted: its objects
// may still be deleted in Azure (within its bounds), but nothing is created
// or updated any more.
type TerminatingError struct {
	Tenant, Namespace string
	// Kind and Name of the refused object.
	Kind, Name string
}

func (e *TerminatingError) Error() string {
	return fmt.Sprintf("Tenant %q is being deleted and serves only deletions of namespace %q's objects: %s %q is not created or updated in Azure. "+
		"The Tenant waits for the namespace's objects to go (see its status); delete this object to delete its Azure resource, "+
		"or annotate it aztenant.io/reconcile-policy: detach-on-delete to leave the resource in Azure",
		e.Tenant, e.Namespace, e.Kind, e.Name)
}

// Reason is the condition reason for an object of a Tenant being deleted.
func (e *TerminatingError) Reason() string { return ReasonTenantTerminating }
