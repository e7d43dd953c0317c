package roles

import (
	"slices"
	"strings"
)

// Definition is an Azure role definition: built-in (from the table) or
// custom (read from ARM with FromARM).
type Definition struct {
	// Name is the role's name (properties.roleName).
	Name string
	// ID is the role definition's GUID, lower case (the ARM name).
	ID string
	// Description as Azure publishes it.
	Description string
	// Permissions are the definition's permission blocks. A block's
	// notActions only take away from that block's actions, as in Azure.
	Permissions []Permission
	// Custom is true for a role read from ARM whose type is CustomRole.
	Custom bool
	// AssignableScopes of a custom role; built-in roles are assignable at "/".
	AssignableScopes []string
}

// Permission is one permissions block of a role definition.
type Permission struct {
	Actions        []string
	NotActions     []string
	DataActions    []string
	NotDataActions []string
}

func (d Definition) clone() Definition {
	out := d
	out.Permissions = make([]Permission, len(d.Permissions))
	for i, p := range d.Permissions {
		out.Permissions[i] = Permission{
			Actions: slices.Clone(p.Actions), NotActions: slices.Clone(p.NotActions),
			DataActions: slices.Clone(p.DataActions), NotDataActions: slices.Clone(p.NotDataActions),
		}
	}
	out.AssignableScopes = slices.Clone(d.AssignableScopes)
	return out
}

// Allows reports whether the definition grants the control-plane action
// (such as Microsoft.Storage/storageAccounts/write): some block's actions
// match it and none of that block's notActions do.
func (d Definition) Allows(action string) bool {
	return len(d.grantedBy(action, false)) > 0
}

// AllowsData reports whether the definition grants the data action (such as
// Microsoft.KeyVault/vaults/secrets/getSecret/action).
func (d Definition) AllowsData(action string) bool {
	return len(d.grantedBy(action, true)) > 0
}

// grantedBy lists the patterns that grant action (data actions when data),
// across the blocks whose not-patterns leave it.
func (d Definition) grantedBy(action string, data bool) []string {
	var out []string
	for _, p := range d.Permissions {
		allow, deny := p.Actions, p.NotActions
		if data {
			allow, deny = p.DataActions, p.NotDataActions
		}
		if matchesAny(deny, action) {
			continue
		}
		for _, a := range allow {
			if Match(a, action) {
				out = append(out, a)
			}
		}
	}
	return out
}

func matchesAny(patterns []string, action string) bool {
	for _, p := range patterns {
		if Match(p, action) {
			return true
		}
	}
	return false
}

// Match reports whether an RBAC action pattern matches an action, as Azure
// matches them: case-insensitively, with "*" standing for any run of
// characters (slashes included). A "/*/" also matches a single "/": Managed
// Identity Operator's Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action
// is how Azure grants Microsoft.ManagedIdentity/userAssignedIdentities/assign/action,
// the action that attaches an identity to a resource.
func Match(pattern, action string) bool {
	pattern, action = strings.ToLower(pattern), strings.ToLower(action)
	if glob(pattern, action) {
		return true
	}
	for i := 0; ; {
		j := strings.Index(pattern[i:], "/*/")
		if j < 0 {
			return false
		}
		k := i + j
		if Match(pattern[:k]+pattern[k+2:], action) {
			return true
		}
		i = k + 1
	}
}

// glob matches with "*" for any run of characters (the classic
// backtracking-on-the-last-star walk; both strings are lower case).
func glob(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
