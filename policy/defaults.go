package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Names of the constraints the operator enforces with no configuration.
const (
	DefaultFederationConstraint     = "aztenant-default-federation"
	DefaultRoleAssignmentConstraint = "aztenant-default-no-privileged-roles"
)

// DefaultConstraints are the identity rules the operator enforces whatever
// --policy-constraints says, unless started with
// --insecure-skip-default-identity-rules: federated credentials trust only a
// ServiceAccount of their own namespace, tokens of issuer (the cluster's) and
// the audience api://AzureADTokenExchange; role assignments grant no
// privileged role (any role whose actions can grant access or act as another
// principal, by the role table) and no Contributor at subscription scope,
// wherever the Tenant guard lets the namespace act. A
// platform team's own constraints of the same templates apply in addition.
func DefaultConstraints(issuer string) ([]*unstructured.Unstructured, error) {
	if issuer == "" {
		return nil, fmt.Errorf("default identity rules: the cluster's service-account issuer is unknown")
	}
	constraint := func(kind, name, group, matchKind string, params map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "constraints.gatekeeper.sh/v1beta1",
			"kind":       kind,
			"metadata":   map[string]any{"name": name},
			"spec": map[string]any{
				"match": map[string]any{"kinds": []any{map[string]any{"apiGroups": []any{group}, "kinds": []any{matchKind}}}},
			},
		}}
		if params != nil {
			u.Object["spec"].(map[string]any)["parameters"] = params
		}
		return u
	}
	return []*unstructured.Unstructured{
		constraint("AztenantFederatedIdentityCredential", DefaultFederationConstraint,
			"managedidentity.aztenant.io", "FederatedIdentityCredential", map[string]any{"issuer": issuer}),
		// The operator reads a principal from a ConfigMap itself; only
		// admission is blind to it, so it is no reason to refuse here.
		constraint("AztenantRoleAssignment", DefaultRoleAssignmentConstraint,
			"authorization.aztenant.io", "RoleAssignment", map[string]any{"allowPrincipalIdFromConfig": true,
				// Which scopes a namespace may use is the Tenant guard's
				// check, before any ARM call.
				"allowedScopePrefixes": []any{"/subscriptions"}}),
	}, nil
}
