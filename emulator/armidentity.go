package emulator

import (
	"net/http"
	"strings"
)

// managedIdentityLocked is ARM's handling of a resource's identity block, the same for every
// resource type that has one: a system-assigned identity gets a principal ID and the
// subscription's tenant ID once, kept across PUTs; each user-assigned identity, named by its
// ARM ID as a key of userAssignedIdentities (with an empty object as value), must exist,
// and Azure answers it with its principalId and clientId. A missing one fails the write
// (400 FailedIdentityOperation, as Azure's identity service reports it).
func (e *Emulator) managedIdentityLocked(w *writeRequest) *apiError {
	ident, ok := w.body["identity"].(map[string]any)
	if !ok {
		return nil
	}
	typ := strings.ToLower(strings.ReplaceAll(str(ident, "type"), " ", ""))
	var old map[string]any
	if w.existing != nil {
		old, _ = w.existing.body["identity"].(map[string]any)
	}
	if strings.Contains(typ, "systemassigned") {
		if old != nil && str(old, "principalId") != "" {
			ident["principalId"] = old["principalId"]
		} else {
			ident["principalId"] = newGUID()
		}
		ident["tenantId"] = w.tenantID
	} else {
		delete(ident, "principalId")
		delete(ident, "tenantId")
	}
	uais, _ := ident["userAssignedIdentities"].(map[string]any)
	if len(uais) > 0 && !strings.Contains(typ, "userassigned") {
		return badRequest("InvalidIdentityType", "userAssignedIdentities may only be given with identity type UserAssigned.")
	}
	if strings.Contains(typ, "userassigned") && len(uais) == 0 {
		return badRequest("BadRequest", "The identity type UserAssigned needs at least one of userAssignedIdentities.")
	}
	for id := range uais {
		r := e.resources[strings.ToLower(id)]
		if r == nil || strings.ToLower(r.typ) != typeUserAssignedIdentity {
			return armErr(http.StatusBadRequest, "FailedIdentityOperation",
				"Identity operation for resource '%s' failed with error 'Failed to perform resource identity operation. Status: 'NotFound'. Response: 'Resource '%s' not found.''.", w.target.id, id)
		}
		uais[id] = map[string]any{"principalId": str(r.props(), "principalId"), "clientId": str(r.props(), "clientId")}
	}
	return nil
}
