package emulator

import (
	"net/http"
	"strings"
	"time"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// roleAssignmentBehaviour validates assignments like Azure (GUID names, an existing built-in
// or custom role, existing principal, no duplicates, immutable principal and role) and keeps
// the authorization index in step.
func roleAssignmentBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.Authorization/roleAssignments",
		lro:      LROConfig{Write: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			if !isGUID(w.target.name) {
				return badRequest("InvalidRoleAssignmentId", "The role assignment ID '%s' is not valid. The role assignment ID must be a GUID.", w.target.name)
			}
			rdID, pid := str(w.props, "roleDefinitionId"), str(w.props, "principalId")
			role, ok := w.e.findRoleLocked(rdID, w.subscriptionID)
			if rdID == "" || !ok {
				return badRequest("RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", armpath.LastName(rdID))
			}
			if pid == "" {
				return badRequest("InvalidPrincipalId", "A valid principal ID must be provided for role assignment.")
			}
			d := w.e.byObjectID[strings.ToLower(pid)]
			// Entra replicates a new principal for a while; ARM looks it up
			// unless the request says its principalType (Azure's advice).
			replicating := d != nil && !d.created.IsZero() && str(w.props, "principalType") == "" &&
				time.Since(d.created) < time.Duration(w.e.cfg.PrincipalReplication)
			if d == nil || replicating {
				return badRequest("PrincipalNotFound", "Principal %s does not exist in the directory %s. Check that you have the correct principal ID. If you are creating this principal and then immediately assigning a role, this error might be related to a replication delay. In this case, set the role assignment principalType property to a value, such as ServicePrincipal, User, or Group.  See https://aka.ms/docs-principaltype", strings.ReplaceAll(pid, "-", ""), w.tenantID)
			}
			if w.existing != nil {
				op := w.existing.props()
				if !strings.EqualFold(str(op, "principalId"), pid) || roleRefFor(str(op, "roleDefinitionId"), w.subscriptionID).guid != role.guid {
					return badRequest("RoleAssignmentUpdateNotPermitted", "Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
				}
			}
			for _, s := range collectLocked(w.target.parent, typeRoleAssignment, false, nil) {
				sp := s.props()
				if !strings.EqualFold(s.id, w.target.id) && strings.EqualFold(str(sp, "principalId"), pid) && roleRefFor(str(sp, "roleDefinitionId"), w.subscriptionID).guid == role.guid {
					return armErr(http.StatusConflict, "RoleAssignmentExists", "The role assignment already exists. The ID of the existing role assignment is %s.", s.body["name"])
				}
			}
			w.props["scope"] = w.target.parent.id
			if str(w.props, "principalType") == "" {
				w.props["principalType"] = "ServicePrincipal"
			}
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			e.dropGrantLocked(r.key)
			// A custom role is resolved when the grant is used: on restore it may come
			// back after its assignments.
			p := r.props()
			if rd := str(p, "roleDefinitionId"); rd != "" {
				e.addGrantLocked(str(p, "principalId"), r.key, r.parentKey, roleRefFor(rd, armpath.Parse(r.id).Subscription()))
			}
		},
		removed: func(e *Emulator, r *resource) { e.dropGrantLocked(r.key) },
	}
}

// dropGrantLocked forgets a role assignment whoever it was for (an out-of-band edit may have
// changed its principal).
func (e *Emulator) dropGrantLocked(raKey string) {
	for pid, gs := range e.grants {
		if _, ok := gs[raKey]; ok {
			e.removeGrantLocked(pid, raKey)
		}
	}
}
