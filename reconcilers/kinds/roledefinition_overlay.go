package kinds

import (
	"context"
	"fmt"

	"github.com/aztenant/aztenant/api/authorization/roles"
	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// What a custom role does that its model cannot say (the generated adapter,
// zz_generated_roledefinition.go, has its API from api/kinds.yaml: an extension resource
// of its owner's scope, a derived GUID name, assignable scopes held to the Tenant's
// resource groups as references, its type forced to CustomRole).
//
// A role definition's actions decide what whoever holds it can do. One that can assign
// or define roles, or act as other principals, would let a namespace reach beyond the
// bounds its Identity was given as soon as anyone assigns it (the RoleAssignment guard
// reads a custom role at assignment, but a role defined here can be assigned by any
// other tool the subscription's administrators use). verify refuses such a definition
// before anything is written, by the role table's rule (roles.Privileged, the rule the
// RoleAssignment guard and onboarding apply); Azure itself accepts any action from a
// principal with Microsoft.Authorization/roleDefinitions/write
// (learn.microsoft.com/azure/role-based-access-control/custom-roles).
var _ = overlay(authorizationv1alpha1.RoleDefinitionGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.Verify = roleDefinitionVerify },
})

// roleDefinitionVerify refuses a privileged definition; it reads nothing from ARM.
func roleDefinitionVerify(_ context.Context, _ reconcilers.ARMGetter, obj azurev1alpha1.Resource, _ string) error {
	rd := obj.(*authorizationv1alpha1.RoleDefinition)
	def := roles.Definition{Name: rd.Spec.RoleName, ID: rd.GetNamespace() + "/" + rd.GetName(), Custom: true}
	for _, p := range rd.Spec.Permissions {
		def.Permissions = append(def.Permissions, roles.Permission{
			Actions: p.Actions, NotActions: p.NotActions, DataActions: p.DataActions, NotDataActions: p.NotDataActions,
		})
	}
	if p, why := roles.Privileged(def); p {
		return &privilegedRoleError{why: why}
	}
	return nil
}

// privilegedRoleError stops a privileged definition with the policy library's reason.
type privilegedRoleError struct{ why string }

func (e *privilegedRoleError) Error() string {
	return fmt.Sprintf("spec.permissions are privileged, and aztenant does not define privileged roles: %s", e.why)
}

func (e *privilegedRoleError) Reason() string { return ReasonPolicyDenied }
