package emulator

import (
	"fmt"
	"net/http"
	"strings"
)

// roleDefinition is a built-in Azure role. Custom roles are not emulated.
type roleDefinition struct {
	id          string // GUID
	name        string
	description string
	actions     []string
	notActions  []string
}

// builtinRoles carries the real GUIDs so clients can hard-code them as they do against Azure.
// Permissions are the control-plane parts of the real definitions that matter for ARM calls.
var builtinRoles = []roleDefinition{
	{id: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635", name: "Owner",
		description: "Grants full access to manage all resources, including the ability to assign roles in Azure RBAC.",
		actions:     []string{"*"}},
	{id: "b24988ac-6180-42a0-ab88-20f7382dd24c", name: "Contributor",
		description: "Grants full access to manage all resources, but does not allow you to assign roles in Azure RBAC.",
		actions:     []string{"*"},
		notActions: []string{"Microsoft.Authorization/*/Delete", "Microsoft.Authorization/*/Write",
			"Microsoft.Authorization/elevateAccess/Action", "Microsoft.Blueprint/blueprintAssignments/write",
			"Microsoft.Blueprint/blueprintAssignments/delete", "Microsoft.Compute/galleries/share/action"}},
	{id: "acdd72a7-3c2f-4223-9b18-0faad56c6cf9", name: "Reader",
		description: "View all resources, but does not allow you to make any changes.",
		actions:     []string{"*/read"}},
	{id: "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9", name: "User Access Administrator",
		description: "Lets you manage user access to Azure resources.",
		actions:     []string{"*/read", "Microsoft.Authorization/*", "Microsoft.Support/*"}},
	{id: "f58310d9-a9f6-439a-9e8d-f62e7b41a168", name: "Role Based Access Control Administrator",
		description: "Manage access to Azure resources by assigning roles using Azure RBAC.",
		actions: []string{"Microsoft.Authorization/roleAssignments/write", "Microsoft.Authorization/roleAssignments/delete",
			"*/read", "Microsoft.Support/*"}},
}

// findRole accepts a GUID, a role definition ID ending in the GUID, or a role name.
func findRole(ref string) *roleDefinition {
	g := lastName(ref)
	for i := range builtinRoles {
		if strings.EqualFold(builtinRoles[i].id, g) || strings.EqualFold(builtinRoles[i].name, ref) {
			return &builtinRoles[i]
		}
	}
	return nil
}

func (rd *roleDefinition) allows(action string) bool {
	granted := false
	for _, a := range rd.actions {
		if wildcardMatch(a, action) {
			granted = true
			break
		}
	}
	if !granted {
		return false
	}
	for _, n := range rd.notActions {
		if wildcardMatch(n, action) {
			return false
		}
	}
	return true
}

// wildcardMatch matches an RBAC action pattern where "*" stands for any run of characters,
// case-insensitively as Azure does.
func wildcardMatch(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return strings.EqualFold(pattern, s)
	}
	if len(s) < star || !strings.EqualFold(pattern[:star], s[:star]) {
		return false
	}
	pattern, s = pattern[star+1:], s[star:]
	if pattern == "" {
		return true
	}
	// Try every position for the rest of the pattern (patterns are short).
	for i := 0; i <= len(s); i++ {
		if wildcardMatch(pattern, s[i:]) {
			return true
		}
	}
	return false
}

// grant is one role assignment in the authorization index.
type grant struct {
	scopeKey string // lower-cased scope
	role     *roleDefinition
}

func (e *Emulator) addGrantLocked(principalID, raKey, scope string, role *roleDefinition) {
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

// authorizeLocked checks that a role assignment at scopeKey or above grants action to the
// caller. Caller holds e.mu (read is enough).
func (e *Emulator) authorizeLocked(c *caller, action, scopeID string) *apiError {
	scopeKey := strings.ToLower(scopeID)
	for _, g := range e.grants[strings.ToLower(c.oid)] {
		if withinScope(scopeKey, g.scopeKey) && g.role.allows(action) {
			return nil
		}
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
	role := findRole(ra.Role)
	if role == nil {
		return fmt.Errorf("seed: unknown role %q (built-in roles only)", ra.Role)
	}
	if ra.PrincipalID == "" {
		return fmt.Errorf("seed: role assignment of %s at %s has no principalId", ra.Role, ra.Scope)
	}
	scope := normalizeScope(ra.Scope)
	parent := e.lookupLocked(scope)
	if parent == nil {
		return fmt.Errorf("seed: role assignment scope %s does not exist", scope)
	}
	name := ra.Name
	if name == "" {
		name = stableGUID(strings.ToLower(scope + "|" + ra.PrincipalID + "|" + role.id))
	}
	id := parent.id + "/providers/Microsoft.Authorization/roleAssignments/" + name
	body := map[string]any{
		"properties": map[string]any{
			"roleDefinitionId": roleDefinitionID(parent.id, role.id),
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
	if ap := parseARMPath(scopeID); ap.subscription() != "" {
		sub = "/subscriptions/" + ap.subscription()
	}
	return sub + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
}

func roleDefinitionBody(scopeID string, rd *roleDefinition) map[string]any {
	return map[string]any{
		"id":   roleDefinitionID(scopeID, rd.id),
		"name": rd.id,
		"type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{
			"roleName": rd.name, "type": "BuiltInRole", "description": rd.description,
			"assignableScopes": []string{"/"},
			"permissions": []map[string]any{{
				"actions": rd.actions, "notActions": nonNil(rd.notActions),
				"dataActions": []string{}, "notDataActions": []string{},
			}},
		},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
