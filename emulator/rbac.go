package emulator

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/aztenant/aztenant/api/authorization/roles"
	"github.com/aztenant/aztenant/emulator/armpath"
)

// Built-in roles are aztenant's role table (package roles): the real GUIDs, so clients can
// hard-code them as they do against Azure, and the real actions, which decide every request
// (roles.Definition.Allows), so what a role may do is tested by behaviour, not by name.
// Custom roles are role definitions written through ARM (type_roledefinition.go).

// builtinByGUID indexes the table by lower-case GUID.
var builtinByGUID = func() map[string]*roles.Definition {
	m := map[string]*roles.Definition{}
	for _, d := range roles.BuiltIn() {
		m[d.ID] = &d
	}
	return m
}()

// builtinRole finds a built-in role by GUID, role definition ID or name (any casing).
func builtinRole(ref string) *roles.Definition {
	if d := builtinByGUID[strings.ToLower(armpath.LastName(ref))]; d != nil {
		return d
	}
	for _, d := range builtinByGUID {
		if strings.EqualFold(d.Name, ref) {
			return d
		}
	}
	return nil
}

// roleRef is the role a role assignment names: a built-in one, or a custom role definition
// stored in the tree, by key. A custom role is looked up whenever it is used, so a change to
// its permissions applies to its assignments at once, as in Azure.
type roleRef struct {
	builtin *roles.Definition
	key     string // lower-cased ID of the custom role definition resource
	guid    string // lower-cased GUID, which identifies the role either way
}

// roleRefFor resolves a role definition ID, GUID or built-in role name to a built-in role,
// or to where a custom role of that GUID lives: under the subscription the ID names, or
// subscription when it names none. It does not check that a custom role exists.
func roleRefFor(ref, subscription string) roleRef {
	g := strings.ToLower(armpath.LastName(ref))
	if d := builtinRole(ref); d != nil {
		return roleRef{builtin: d, guid: d.ID}
	}
	if ap := armpath.Parse(ref); ap.Subscription() != "" {
		subscription = ap.Subscription()
	}
	return roleRef{key: customRoleKey(subscription, g), guid: g}
}

func customRoleKey(subscription, guid string) string {
	return strings.ToLower("/subscriptions/" + subscription + "/providers/" + typeRoleDefinition + "/" + guid)
}

// definitionLocked returns the role's definition: the table's, or the stored custom role's.
func (e *Emulator) definitionLocked(r roleRef) (roles.Definition, bool) {
	if r.builtin != nil {
		return *r.builtin, true
	}
	res := e.resources[r.key]
	if res == nil || r.key == "" {
		return roles.Definition{}, false
	}
	d, err := roles.FromARM(res.body)
	return d, err == nil
}

// findRoleLocked is roleRefFor for a role that must exist.
func (e *Emulator) findRoleLocked(ref, subscription string) (roleRef, bool) {
	r := roleRefFor(ref, subscription)
	if r.builtin != nil {
		return r, true
	}
	_, ok := e.definitionLocked(r)
	return r, ok && isGUID(r.guid)
}

// grant is one role assignment in the authorization index.
type grant struct {
	scopeKey string // lower-cased scope
	role     roleRef
}

func (e *Emulator) addGrantLocked(principalID, raKey, scope string, role roleRef) {
	pk := strings.ToLower(principalID)
	if e.grants[pk] == nil {
		e.grants[pk] = map[string]grant{}
	}
	e.grants[pk][raKey] = grant{scopeKey: strings.ToLower(scope), role: role}
}

func (e *Emulator) removeGrantLocked(principalID, raKey string) {
	pk := strings.ToLower(principalID)
	delete(e.grants[pk], raKey)
	if len(e.grants[pk]) == 0 {
		delete(e.grants, pk)
	}
}

// allowedLocked reports whether a role assignment at scopeKey or above grants action to the
// caller. Caller holds e.mu (read is enough).
func (e *Emulator) allowedLocked(c *caller, action, scopeID string) bool {
	scopeKey := strings.ToLower(scopeID)
	for _, g := range e.grants[strings.ToLower(c.oid)] {
		if !armpath.WithinScope(scopeKey, g.scopeKey) {
			continue
		}
		if d, ok := e.definitionLocked(g.role); ok && d.Allows(action) {
			return true
		}
	}
	return false
}

// authorizeLocked checks that a role assignment at scopeKey or above grants action to the
// caller, and answers as ARM does when none does. Caller holds e.mu (read is enough).
func (e *Emulator) authorizeLocked(c *caller, action, scopeID string) *apiError {
	if e.allowedLocked(c, action, scopeID) {
		return nil
	}
	return armErr(http.StatusForbidden, "AuthorizationFailed",
		"The client '%s' with object id '%s' does not have authorization to perform action '%s' over scope '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
		c.appid, c.oid, action, scopeID)
}

// actionFor names the RBAC action of a request on a resource type, as Azure does:
// Microsoft.Storage/storageAccounts/write, .../listKeys/action ...
func actionFor(fullType, method, postAction string) string {
	t := fullType
	switch strings.ToLower(fullType) {
	case typeResourceGroup:
		t = "Microsoft.Resources/subscriptions/resourceGroups"
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		return t + "/read"
	case http.MethodPut, http.MethodPatch:
		return t + "/write"
	case http.MethodDelete:
		return t + "/delete"
	case http.MethodPost:
		return t + "/" + postAction + "/action"
	}
	return t + "/" + strings.ToLower(method)
}

// assignRoleLocked creates a role assignment resource from a seed entry.
func (e *Emulator) assignRoleLocked(ra RoleAssignment) error {
	if ra.PrincipalID == "" {
		return fmt.Errorf("seed: role assignment of %s at %s has no principalId", ra.Role, ra.Scope)
	}
	scope := armpath.NormalizeScope(ra.Scope)
	parent := e.lookupLocked(scope)
	if parent == nil {
		return fmt.Errorf("seed: role assignment scope %s does not exist", scope)
	}
	role, ok := e.findRoleLocked(ra.Role, armpath.Parse(scope).Subscription())
	if !ok {
		return fmt.Errorf("seed: unknown role %q (a built-in role's name or GUID, or the GUID of a custom role of the scope's subscription)", ra.Role)
	}
	name := ra.Name
	if name == "" {
		name = stableGUID(strings.ToLower(scope + "|" + ra.PrincipalID + "|" + role.guid))
	}
	id := parent.id + "/providers/Microsoft.Authorization/roleAssignments/" + name
	body := map[string]any{
		"properties": map[string]any{
			"roleDefinitionId": roleDefinitionID(parent.id, role.guid),
			"principalId":      ra.PrincipalID,
			"principalType":    "ServicePrincipal",
		},
	}
	_, _, err := e.storeLocked(writeTarget{id: id, fullType: "Microsoft.Authorization/roleAssignments", name: name, parent: parent}, body, "")
	if err != nil {
		return fmt.Errorf("seed: role assignment at %s: %s", scope, err.Message)
	}
	return nil
}

func roleDefinitionID(scopeID, guid string) string {
	sub := ""
	if ap := armpath.Parse(scopeID); ap.Subscription() != "" {
		sub = "/subscriptions/" + ap.Subscription()
	}
	return sub + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
}

// builtinRoleBody renders a built-in role as ARM returns it, with an ID under scopeID's
// subscription (or tenant-level).
func builtinRoleBody(scopeID string, d *roles.Definition) map[string]any {
	perms := make([]map[string]any, len(d.Permissions))
	for i, p := range d.Permissions {
		perms[i] = map[string]any{
			"actions": nonNil(p.Actions), "notActions": nonNil(p.NotActions),
			"dataActions": nonNil(p.DataActions), "notDataActions": nonNil(p.NotDataActions),
		}
	}
	return map[string]any{
		"id":   roleDefinitionID(scopeID, d.ID),
		"name": d.ID,
		"type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{
			"roleName": d.Name, "type": roles.TypeBuiltIn, "description": d.Description,
			"assignableScopes": []string{"/"},
			"permissions":      perms,
		},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
