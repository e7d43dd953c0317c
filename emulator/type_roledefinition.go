package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/api/authorization/roles"
	"github.com/aztenant/aztenant/emulator/armpath"
)

// Role definitions (Microsoft.Authorization/roleDefinitions, api-version 2022-04-01 as
// armauthorization/v2 speaks it). Built-in roles come from the role table and cannot be
// written; custom roles are written by PUT {scope}/providers/Microsoft.Authorization/
// roleDefinitions/{guid} with Azure's body (properties.roleName, description, type
// "CustomRole", permissions[{actions, notActions, dataActions, notDataActions}],
// assignableScopes) and stored in the tree under their subscription, so they survive a
// restart like any resource. An assignment of a custom role grants exactly its actions.
//
// Status codes follow the published REST spec (authorization-RoleDefinitionsCalls.json,
// 2022-04-01): PUT answers 201 whether it creates or updates (the spec lists no 200, and
// the SDK accepts only 201), DELETE 200 with the deleted definition or 204 when there was
// none, GET 404 RoleDefinitionDoesNotExist. Writing needs
// Microsoft.Authorization/roleDefinitions/write (deleting .../delete) on the request scope
// and on every assignable scope, as Azure requires; reading needs no role here.

// roleDefinitionBehaviour validates custom role definitions written through ARM.
func roleDefinitionBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.Authorization/roleDefinitions",
		lro:      LROConfig{Write: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			name := w.target.name
			if !isGUID(name) {
				return badRequest("InvalidRoleDefinitionId", "The role definition ID '%s' is not valid. The role definition ID must be a GUID.", name)
			}
			if builtinRole(name) != nil {
				return armErr(http.StatusForbidden, "RoleDefinitionUpdateNotPermitted", "The role definition '%s' is a built-in role and cannot be created, updated or deleted.", name)
			}
			p := w.props
			roleName := strings.TrimSpace(str(p, "roleName"))
			if roleName == "" {
				return badRequest("InvalidRoleDefinition", "The role definition must have a roleName.")
			}
			if t := str(p, "type"); t != "" && !strings.EqualFold(t, roles.TypeCustom) {
				return badRequest("InvalidRoleDefinition", "The role definition type '%s' is not valid: only a %s can be written.", t, roles.TypeCustom)
			}
			p["type"] = roles.TypeCustom
			d, err := roles.FromARM(w.body)
			if err != nil {
				return badRequest("InvalidRoleDefinition", "The role definition is not valid: %v.", err)
			}
			if len(d.Permissions) == 0 {
				return badRequest("InvalidRoleDefinition", "The role definition must have permissions.")
			}
			if len(d.AssignableScopes) == 0 {
				return badRequest("InvalidRoleDefinition", "The role definition must have at least one assignable scope.")
			}
			for _, s := range d.AssignableScopes {
				ap := armpath.Parse(s)
				if armpath.NormalizeScope(s) == "/" || !strings.EqualFold(ap.Subscription(), w.subscriptionID) {
					return badRequest("InvalidRoleDefinition", "The assignable scope '%s' is not valid: a custom role of subscription '%s' is assignable in that subscription only (not at '/').", s, w.subscriptionID)
				}
				if w.e.lookupLocked(s) == nil {
					return badRequest("InvalidRoleDefinition", "The assignable scope '%s' does not exist.", s)
				}
			}
			if builtinRole(roleName) != nil {
				return armErr(http.StatusConflict, "RoleDefinitionWithSameNameExists", "A role with the same name '%s' already exists: it is a built-in role.", roleName)
			}
			for _, r := range w.e.resources {
				if r.typeKey() == typeRoleDefinition && !strings.EqualFold(r.id, w.target.id) &&
					strings.EqualFold(str(r.props(), "roleName"), roleName) && sameTenant(w.e, r, w.tenantID) {
					return armErr(http.StatusConflict, "RoleDefinitionWithSameNameExists", "A custom role with the same name '%s' already exists in this directory.", roleName)
				}
			}
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			// Role definitions have no provisioningState in Azure.
			delete(r.props(), "provisioningState")
			r.refresh()
		},
	}
}

func sameTenant(e *Emulator, r *resource, tenantID string) bool {
	if s := e.resources["/subscriptions/"+strings.ToLower(armpath.Parse(r.id).Subscription())]; s != nil {
		return strings.EqualFold(str(s.body, "tenantId"), tenantID)
	}
	return false
}

// customRolesLocked lists the stored custom role definitions.
func (e *Emulator) customRolesLocked() []*resource {
	var out []*resource
	for _, r := range e.resources {
		if r.typeKey() == typeRoleDefinition {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

func (e *Emulator) serveRoleDefinitions(w http.ResponseWriter, r *http.Request, req *armRequest, c *caller) *apiError {
	if req.kind == kindRoleDefinitionList {
		return e.listRoleDefinitions(w, r, req)
	}
	scopeID := "/"
	if p := req.path.Parent(); p.ID != "" {
		scopeID = p.ID
	}
	guid := req.target.Name
	sub := req.path.Subscription()
	switch r.Method {
	case http.MethodPut:
		return e.putRoleDefinition(w, r, c, scopeID, sub, guid)
	case http.MethodDelete:
		return e.deleteRoleDefinition(w, c, scopeID, sub, guid)
	}
	notFound := armErr(http.StatusNotFound, "RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", guid)
	if !isGUID(guid) {
		return notFound
	}
	if d := builtinRole(guid); d != nil {
		writeJSON(w, http.StatusOK, builtinRoleBody(scopeID, d))
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, res := range e.customRolesLocked() {
		if strings.EqualFold(str(res.body, "name"), guid) && (sub == "" || strings.EqualFold(armpath.Parse(res.id).Subscription(), sub)) {
			writeJSON(w, http.StatusOK, res.raw)
			return nil
		}
	}
	return notFound
}

func (e *Emulator) putRoleDefinition(w http.ResponseWriter, r *http.Request, c *caller, scopeID, sub, guid string) *apiError {
	if sub == "" {
		return badRequest("InvalidRoleDefinition", "The emulator writes custom roles under a subscription: PUT /subscriptions/{id}/providers/Microsoft.Authorization/roleDefinitions/{guid}.")
	}
	in, err := readBody(r)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	parent := e.resources["/subscriptions/"+strings.ToLower(sub)]
	if parent == nil {
		return armErr(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
	}
	const action = "Microsoft.Authorization/roleDefinitions/write"
	scopes := []string{scopeID}
	if p, ok := in["properties"].(map[string]any); ok {
		if as, ok := p["assignableScopes"].([]any); ok {
			for _, s := range as {
				// Scopes outside the subscription are refused as invalid by prepare.
				if s, ok := s.(string); ok && strings.EqualFold(armpath.Parse(s).Subscription(), sub) {
					scopes = append(scopes, armpath.NormalizeScope(s))
				}
			}
		}
	}
	for _, s := range scopes {
		if aerr := e.authorizeLocked(c, action, s); aerr != nil {
			return aerr
		}
	}
	id := parent.id + "/providers/Microsoft.Authorization/roleDefinitions/" + strings.ToLower(guid)
	if existing := e.resources[strings.ToLower(id)]; existing != nil {
		// Who may change a custom role must also hold write on the scopes it had.
		if d, derr := roles.FromARM(existing.body); derr == nil {
			for _, s := range d.AssignableScopes {
				if aerr := e.authorizeLocked(c, action, s); aerr != nil {
					return aerr
				}
			}
		}
	}
	res, _, serr := e.storeLocked(writeTarget{id: id, fullType: "Microsoft.Authorization/roleDefinitions", name: strings.ToLower(guid), parent: parent}, in, "")
	if serr != nil {
		return serr
	}
	writeJSON(w, http.StatusCreated, res.raw)
	return nil
}

func (e *Emulator) deleteRoleDefinition(w http.ResponseWriter, c *caller, scopeID, sub, guid string) *apiError {
	if builtinRole(guid) != nil {
		return armErr(http.StatusForbidden, "RoleDefinitionUpdateNotPermitted", "The role definition '%s' is a built-in role and cannot be created, updated or deleted.", guid)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	const action = "Microsoft.Authorization/roleDefinitions/delete"
	if aerr := e.authorizeLocked(c, action, scopeID); aerr != nil {
		return aerr
	}
	res := e.resources[customRoleKey(sub, guid)]
	if sub == "" || res == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if d, err := roles.FromARM(res.body); err == nil {
		for _, s := range d.AssignableScopes {
			if aerr := e.authorizeLocked(c, action, s); aerr != nil {
				return aerr
			}
		}
	}
	raw := res.raw
	e.removeLocked(res)
	writeJSON(w, http.StatusOK, raw)
	return nil
}

// listRoleDefinitions answers GET {scope}/providers/Microsoft.Authorization/roleDefinitions:
// the built-in roles, and the custom roles assignable at the scope (or, with the
// atScopeAndBelow() filter, below it too), filtered by roleName eq '...' or type eq '...'.
func (e *Emulator) listRoleDefinitions(w http.ResponseWriter, r *http.Request, req *armRequest) *apiError {
	scopeID := "/"
	if l := req.path.Last(); l.ID != "" {
		scopeID = l.ID
	}
	scopeKey := strings.ToLower(scopeID)
	filter := strings.ToLower(r.URL.Query().Get("$filter"))
	below := strings.Contains(filter, "atscopeandbelow()")
	keep := func(roleName, roleType string) bool {
		if i := strings.Index(filter, "rolename eq '"); i >= 0 {
			want, _, _ := strings.Cut(filter[i+len("rolename eq '"):], "'")
			if strings.ToLower(roleName) != want {
				return false
			}
		}
		if i := strings.Index(filter, "type eq '"); i >= 0 {
			want, _, _ := strings.Cut(filter[i+len("type eq '"):], "'")
			if strings.ToLower(roleType) != want {
				return false
			}
		}
		return true
	}
	var buf bytes.Buffer
	buf.WriteString(`{"value":[`)
	n := 0
	add := func(raw []byte) {
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(raw)
		n++
	}
	for _, d := range roles.BuiltIn() {
		if keep(d.Name, roles.TypeBuiltIn) {
			b, _ := json.Marshal(builtinRoleBody(scopeID, builtinByGUID[d.ID]))
			add(b)
		}
	}
	e.mu.RLock()
	for _, res := range e.customRolesLocked() {
		d, err := roles.FromARM(res.body)
		if err != nil || !keep(d.Name, roles.TypeCustom) {
			continue
		}
		for _, s := range d.AssignableScopes {
			sk := strings.ToLower(armpath.NormalizeScope(s))
			if armpath.WithinScope(scopeKey, sk) || (below && armpath.WithinScope(sk, scopeKey)) {
				add(res.raw)
				break
			}
		}
	}
	e.mu.RUnlock()
	buf.WriteString("]}")
	writeJSON(w, http.StatusOK, buf.Bytes())
	return nil
}
