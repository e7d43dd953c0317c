// Package roles owns aztenant's one table of Azure built-in role definitions
// and the test of privilege that reads their actions.
//
// The table (BuiltIn) holds, for each built-in role aztenant knows, its name,
// its role definition GUID (the same in every subscription and cloud) and the
// actions, notActions, dataActions and notDataActions of its published
// definition, each checked against Microsoft's "Azure built-in roles" pages
// (the page of each group is named above it in builtin.go). Everything else
// derives from it: the names RoleAssignment's roleDefinitionReference.wellKnownName
// accepts, the roles onboarding may grant, the privileged roles the policy
// library refuses (a test keeps the template's list equal to Privileged over
// this table), and the built-in roles the Azure emulator serves and enforces
// (it decides requests with Definition.Allows, so privilege is tested by
// behaviour, not by name).
//
// Privileged decides from a definition's actions, never its name, so a custom
// role (read from ARM) is judged by the same rules as a built-in one. Match is
// Azure's case-insensitive wildcard matching of actions.
package roles
