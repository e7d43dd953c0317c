package roles

import (
	"fmt"
	"slices"
	"strings"
)

// A power is an action whose holder can reach beyond what it was granted.
type power struct {
	action string
	what   string
}

// grantPowers change who holds which role: whoever has one can give itself
// (or anyone) any role at the scope, whatever else the role says.
var grantPowers = []power{
	{"Microsoft.Authorization/roleAssignments/write", "assign any role"},
	{"Microsoft.Authorization/roleAssignments/delete", "remove role assignments"},
	{"Microsoft.Authorization/roleDefinitions/write", "define roles with any action"},
	{"Microsoft.Authorization/elevateAccess/action", "elevate to User Access Administrator at the root scope"},
}

// actAsPowers let the holder act as another principal: a managed identity it
// federates or attaches to compute it runs, or whatever identity runs code
// on a VM or an AKS cluster it reaches as administrator.
var actAsPowers = []power{
	{"Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials/write", "federate managed identities with an issuer it controls and act as them"},
	{"Microsoft.ManagedIdentity/userAssignedIdentities/assign/action", "attach managed identities to resources it runs and act as them"},
	{"Microsoft.ContainerService/managedClusters/listClusterAdminCredential/action", "get the cluster-admin credential of AKS clusters (a certificate outside Entra ID)"},
	{"Microsoft.ContainerService/managedClusters/accessProfiles/listCredential/action", "get AKS access-profile credentials, clusterAdmin included"},
	{"Microsoft.ContainerService/managedClusters/runCommand/action", "run commands in AKS clusters as cluster admin"},
	{"Microsoft.Compute/virtualMachines/runCommand/action", "run commands on virtual machines, with their managed identities"},
	{"Microsoft.Compute/virtualMachines/runCommands/write", "install run commands on virtual machines, with their managed identities"},
	{"Microsoft.Compute/virtualMachines/extensions/write", "install extensions (custom scripts) on virtual machines, with their managed identities"},
	{"Microsoft.Compute/virtualMachineScaleSets/virtualMachines/runCommand/action", "run commands on scale set instances (AKS nodes among them)"},
	{"Microsoft.Compute/virtualMachineScaleSets/extensions/write", "install extensions on scale sets (AKS nodes among them)"},
	{"Microsoft.KeyVault/vaults/accessPolicies/write", "grant itself the secrets, keys and certificates of vaults that use access policies"},
}

// dataPowers are data actions of the same reach. A role needs every action
// of one group.
var dataPowers = []struct {
	actions []string
	what    string
}{
	{[]string{
		"Microsoft.KeyVault/vaults/secrets/getSecret/action",
		"Microsoft.KeyVault/vaults/keys/decrypt/action",
		"Microsoft.KeyVault/vaults/keys/release/action",
		"Microsoft.KeyVault/vaults/certificates/read",
	}, "use every secret, key and certificate of the key vaults in scope"},
	{[]string{
		"Microsoft.ContainerService/managedClusters/rbac.authorization.k8s.io/clusterrolebindings/write",
	}, "bind any Kubernetes role cluster-wide in AKS clusters (cluster-admin, and every workload identity the clusters federate)"},
}

// Privileged reports whether a role definition lets its holder reach beyond
// the role itself, judged only by its actions and data actions (never its
// name), and says why. A definition is privileged when:
//
//   - its actions are "*" with no notActions, or its data actions include "*";
//   - it can change role assignments or definitions
//     (Microsoft.Authorization/roleAssignments/write or delete,
//     roleDefinitions/write, elevateAccess/action), through any pattern,
//     "*" included;
//   - a pattern other than a bare "*" grants a way to act as another
//     principal: writing federated identity credentials, assigning
//     user-assigned identities, AKS cluster-admin credentials or run-command,
//     VM or scale set run-command and extensions, Key Vault access policies;
//   - its data actions cover the whole data plane of Key Vault (every secret,
//     key and certificate) or cluster-wide role bindings in AKS.
//
// A bare "*" whose notActions take away every Microsoft.Authorization write
// (Contributor's shape) is not privileged here but Broad: it holds the
// act-as powers only as part of everything, over the resources of the scope
// it is granted at. Conditions (ABAC) on a definition are ignored, so a role
// such as Key Vault Data Access Administrator, whose condition limits which
// roles it assigns, is privileged: Key Vault Administrator is among them.
func Privileged(d Definition) (bool, string) {
	for _, p := range d.Permissions {
		if slices.Contains(p.Actions, "*") && len(p.NotActions) == 0 {
			return true, fmt.Sprintf("%s: actions \"*\" with no notActions allow every action, role assignments included", label(d))
		}
		if slices.Contains(p.DataActions, "*") {
			return true, fmt.Sprintf("%s: dataActions \"*\" allow every data action of every service", label(d))
		}
	}
	for _, pw := range grantPowers {
		if by := d.grantedBy(pw.action, false); len(by) > 0 {
			return true, fmt.Sprintf("%s: %s grants %s, so it can %s", label(d), quoted(by), pw.action, pw.what)
		}
	}
	for _, pw := range actAsPowers {
		by := slices.DeleteFunc(d.grantedBy(pw.action, false), func(a string) bool { return a == "*" })
		if len(by) > 0 {
			return true, fmt.Sprintf("%s: %s grants %s, so it can %s", label(d), quoted(by), pw.action, pw.what)
		}
	}
	for _, dp := range dataPowers {
		all := true
		var by []string
		for _, a := range dp.actions {
			g := d.grantedBy(a, true)
			if len(g) == 0 {
				all = false
				break
			}
			by = append(by, g...)
		}
		if all {
			return true, fmt.Sprintf("%s: dataActions %s cover %s, so it can %s", label(d), quoted(uniq(by)), strings.Join(dp.actions, ", "), dp.what)
		}
	}
	return false, ""
}

// Broad reports whether a definition that is not Privileged still grants,
// through a bare "*" action, the act-as powers Privileged looks for: it does
// everything to the resources of its scope (Contributor is the built-in
// one). aztenant allows such a role on a resource group and below, whose
// resources are the namespace's own, and refuses it at subscription scope or
// wider, where it reaches every team's identities, clusters and VMs.
func Broad(d Definition) (bool, string) {
	if p, _ := Privileged(d); p {
		return false, ""
	}
	for _, pw := range actAsPowers {
		if slices.Contains(d.grantedBy(pw.action, false), "*") {
			return true, fmt.Sprintf("%s: actions \"*\" (less its notActions) grant %s and the other powers over every resource of the scope, so it can %s there", label(d), pw.action, pw.what)
		}
	}
	return false, ""
}

func label(d Definition) string {
	kind := "built-in role"
	if d.Custom {
		kind = "custom role"
	}
	if d.Name == "" {
		return kind + " " + d.ID
	}
	return fmt.Sprintf("%s %q (%s)", kind, d.Name, d.ID)
}

func quoted(patterns []string) string {
	q := make([]string, len(patterns))
	for i, p := range patterns {
		q[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(q, ", ")
}

func uniq(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// PrivilegedActions are the actions Privileged looks for: grant (through
// any pattern, "*" included), actAs (through any pattern but a bare "*")
// and data (each group needs all its data actions). The policy library's
// RoleDefinition template carries the same lists, which a test checks.
func PrivilegedActions() (grant, actAs []string, data [][]string) {
	for _, p := range grantPowers {
		grant = append(grant, p.action)
	}
	for _, p := range actAsPowers {
		actAs = append(actAs, p.action)
	}
	for _, g := range dataPowers {
		data = append(data, slices.Clone(g.actions))
	}
	return grant, actAs, data
}
