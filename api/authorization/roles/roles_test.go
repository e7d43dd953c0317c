package roles_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/api/authorization/roles"
)

// A few GUIDs pinned against Microsoft's published list ("Azure built-in
// roles for General / Privileged / Identity / Security"), Reader's among
// them: it was once mistyped here as acdd72a7-3c2f-4223-9b18-0faad56c6cf9.
func TestBuiltInGUIDs(t *testing.T) {
	for name, want := range map[string]string{
		"Reader":                    "acdd72a7-3385-48ef-bd42-f606fba81ae7",
		"Owner":                     "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
		"Contributor":               "b24988ac-6180-42a0-ab88-20f7382dd24c",
		"User Access Administrator": "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
		"Managed Identity Operator": "f1a07417-d97a-45cb-824c-7a7467783830",
		"Key Vault Administrator":   "00482a5a-887f-4fb3-b363-3b7fe8e74483",
		"Azure Kubernetes Service Cluster Admin Role": "0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8",
	} {
		d, ok := roles.ByName(name)
		if !ok || d.ID != want {
			t.Errorf("%s: %q, %v; want %s", name, d.ID, ok, want)
		}
		if byID, ok := roles.ByID("/subscriptions/x/providers/Microsoft.Authorization/roleDefinitions/" + strings.ToUpper(want)); !ok || byID.Name != name {
			t.Errorf("ByID(%s) = %q, %v", want, byID.Name, ok)
		}
	}
	if _, ok := roles.ByID("acdd72a7-3c2f-4223-9b18-0faad56c6cf9"); ok {
		t.Error("the mistyped Reader GUID is in the table")
	}
}

var guid = regexp.MustCompile(`^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$`)

// The table names each role and each GUID once, and every entry is complete.
func TestBuiltInTableIsWellFormed(t *testing.T) {
	names, ids := map[string]bool{}, map[string]bool{}
	all := roles.BuiltIn()
	for _, d := range all {
		if names[strings.ToLower(d.Name)] {
			t.Errorf("name %q twice", d.Name)
		}
		if ids[d.ID] {
			t.Errorf("ID %s twice (%s)", d.ID, d.Name)
		}
		names[strings.ToLower(d.Name)], ids[d.ID] = true, true
		if !guid.MatchString(d.ID) {
			t.Errorf("%s: ID %q is not a lower-case GUID", d.Name, d.ID)
		}
		if d.Description == "" || len(d.Permissions) == 0 || d.Custom {
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		}
		for _, p := range d.Permissions {
			if len(p.Actions)+len(p.DataActions) == 0 {
				t.Errorf("%s: a permission block grants nothing", d.Name)
			}
		}
	}
	if len(roles.NameToID()) != len(all) {
		t.Errorf("NameToID has %d names for %d roles", len(roles.NameToID()), len(all))
	}
	// BuiltIn hands out copies.
	all[0].Permissions[0].Actions[0] = "changed"
	if again := roles.BuiltIn(); again[0].Permissions[0].Actions[0] == "changed" {
		t.Error("BuiltIn shares its slices with the table")
	}
}

// Every role of the table, classified by its actions. A role added to the
// table without a line here fails, so each addition is a decision.
func TestPrivilegedOverTheTable(t *testing.T) {
	const (
		none       = ""
		privileged = "privileged"
		broad      = "broad"
	)
	want := map[string]struct{ class, why string }{
		"Owner":       {privileged, `"*" with no notActions`},
		"Contributor": {broad, "federatedIdentityCredentials/write"},
		"Role Based Access Control Administrator":     {privileged, "roleAssignments/write"},
		"User Access Administrator":                   {privileged, `"Microsoft.Authorization/*" grants Microsoft.Authorization/roleAssignments/write`},
		"Reader":                                      {none, ""},
		"Managed Identity Contributor":                {privileged, "federatedIdentityCredentials/write"},
		"Managed Identity Operator":                   {privileged, `"Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action" grants Microsoft.ManagedIdentity/userAssignedIdentities/assign/action`},
		"Key Vault Administrator":                     {privileged, `"Microsoft.KeyVault/vaults/*" cover`},
		"Key Vault Contributor":                       {privileged, "accessPolicies/write"},
		"Key Vault Data Access Administrator":         {privileged, "roleAssignments/write"},
		"Key Vault Secrets Officer":                   {none, ""},
		"Key Vault Secrets User":                      {none, ""},
		"AcrPull":                                     {none, ""},
		"Azure Kubernetes Service Cluster Admin Role": {privileged, "listClusterAdminCredential/action"},
		"Azure Kubernetes Service Cluster User Role":  {none, ""},
		"Azure Kubernetes Service Contributor Role":   {privileged, `"Microsoft.ContainerService/managedClusters/*" grants Microsoft.ContainerService/managedClusters/listClusterAdminCredential/action`},
		"Azure Kubernetes Service RBAC Admin":         {privileged, "clusterrolebindings/write"},
		"Azure Kubernetes Service RBAC Cluster Admin": {privileged, "clusterrolebindings/write"},
		"Azure Kubernetes Service RBAC Reader":        {none, ""},
		"Azure Kubernetes Service RBAC Writer":        {none, ""},
		"Virtual Machine Contributor":                 {privileged, "virtualMachines/runCommand/action"},
		"Storage Account Contributor":                 {none, ""},
		"Storage Blob Data Contributor":               {none, ""},
		"Storage Blob Data Owner":                     {none, ""},
		"Storage Blob Data Reader":                    {none, ""},
		"Network Contributor":                         {none, ""},
	}
	for _, d := range roles.BuiltIn() {
		w, ok := want[d.Name]
		if !ok {
			t.Errorf("%s: not classified in this test", d.Name)
			continue
		}
		delete(want, d.Name)
		p, pWhy := roles.Privileged(d)
		b, bWhy := roles.Broad(d)
		got, why := none, ""
		switch {
		case p && b:
			t.Errorf("%s: both privileged and broad", d.Name)
		case p:
			got, why = privileged, pWhy
		case b:
			got, why = broad, bWhy
		}
		if got != w.class || !strings.Contains(why, w.why) {
			t.Errorf("%s: %q (%s), want %q mentioning %q", d.Name, got, why, w.class, w.why)
		}
		if got != none && !strings.Contains(why, d.ID) {
			t.Errorf("%s: the reason %q does not name the role's ID", d.Name, why)
		}
	}
	for name := range want {
		t.Errorf("%s: classified here but not in the table", name)
	}
}

// Custom roles are judged by the same rules: by what they allow, whatever
// they are called.
func TestPrivilegedCustomRoles(t *testing.T) {
	custom := func(ps ...roles.Permission) roles.Definition {
		return roles.Definition{Name: "Reader", ID: "11111111-2222-3333-4444-555555555555", Custom: true, Permissions: ps}
	}
	for _, c := range []struct {
		name       string
		def        roles.Definition
		privileged bool
		broad      bool
		why        string
	}{
		{"read only, named like a built-in", custom(roles.Permission{Actions: []string{"*/read"}}), false, false, ""},
		{"writes everything", custom(roles.Permission{Actions: []string{"*/write"}}), true, false, `"*/write" grants Microsoft.Authorization/roleAssignments/write`},
		{"role assignments in other casing", custom(roles.Permission{Actions: []string{"MICROSOFT.AUTHORIZATION/ROLEASSIGNMENTS/WRITE"}}), true, false, "assign any role"},
		{"role definitions", custom(roles.Permission{Actions: []string{"Microsoft.Authorization/roleDefinitions/*"}}), true, false, "define roles"},
		{"all of managed identity", custom(roles.Permission{Actions: []string{"Microsoft.ManagedIdentity/*"}}), true, false, "federatedIdentityCredentials/write"},
		{"assign identities", custom(roles.Permission{Actions: []string{"Microsoft.ManagedIdentity/userAssignedIdentities/assign/action"}}), true, false, "attach managed identities"},
		{"all actions on VMs", custom(roles.Permission{Actions: []string{"Microsoft.Compute/*/action"}}), true, false, "runCommand"},
		{"AKS admin credential", custom(roles.Permission{Actions: []string{"Microsoft.ContainerService/managedClusters/list*"}}), true, false, "listClusterAdminCredential"},
		{"AKS user credential only", custom(roles.Permission{Actions: []string{"Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"}}), false, false, ""},
		{"every data action", custom(roles.Permission{DataActions: []string{"*"}, NotDataActions: []string{"Microsoft.Storage/*"}}), true, false, `dataActions "*"`},
		{"all of key vault data", custom(roles.Permission{DataActions: []string{"Microsoft.KeyVault/*"}}), true, false, "every secret, key and certificate"},
		{"key vault secrets only", custom(roles.Permission{DataActions: []string{"Microsoft.KeyVault/vaults/secrets/*"}}), false, false, ""},
		{"everything", custom(roles.Permission{Actions: []string{"*"}}), true, false, "every action"},
		{"Contributor's shape", custom(roles.Permission{Actions: []string{"*"}, NotActions: []string{"Microsoft.Authorization/*"}}), false, true, `actions "*"`},
		{"everything but compute still assigns roles", custom(roles.Permission{Actions: []string{"*"}, NotActions: []string{"Microsoft.Compute/*"}}), true, false, `"*" grants Microsoft.Authorization/roleAssignments/write`},
		{"Contributor's shape naming identities too", custom(roles.Permission{Actions: []string{"*", "Microsoft.ManagedIdentity/*"}, NotActions: []string{"Microsoft.Authorization/*"}}), true, false, `"Microsoft.ManagedIdentity/*"`},
		// A block's notActions do not take away another block's actions.
		{"notActions stay in their block", custom(
			roles.Permission{Actions: []string{"*/read"}, NotActions: []string{"Microsoft.Authorization/*"}},
			roles.Permission{Actions: []string{"Microsoft.Authorization/roleAssignments/write"}}), true, false, "roleAssignments/write"},
		{"notActions remove it", custom(roles.Permission{
			Actions: []string{"Microsoft.Authorization/*"}, NotActions: []string{"Microsoft.Authorization/*/write", "Microsoft.Authorization/*/delete", "Microsoft.Authorization/elevateAccess/action"}}), false, false, ""},
	} {
		p, why := roles.Privileged(c.def)
		b, bwhy := roles.Broad(c.def)
		if p != c.privileged || b != c.broad {
			t.Errorf("%s: privileged %v (%s), broad %v (%s); want %v, %v", c.name, p, why, b, bwhy, c.privileged, c.broad)
			continue
		}
		if b {
			why = bwhy
		}
		if !strings.Contains(why, c.why) || (c.why != "" && !strings.Contains(why, `custom role "Reader"`)) {
			t.Errorf("%s: reason %q, want it to mention %q and the custom role", c.name, why, c.why)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, action string
		want            bool
	}{
		{"*", "Microsoft.Storage/storageAccounts/write", true},
		{"*/read", "Microsoft.Storage/storageAccounts/read", true},
		{"*/read", "Microsoft.Storage/storageAccounts/write", false},
		{"*/read", "Microsoft.Storage/storageAccounts/readers/write", false},
		{"Microsoft.Authorization/*/Write", "microsoft.authorization/roleassignments/write", true},
		{"Microsoft.Authorization/*/Write", "Microsoft.Authorization/roleAssignments/delete", false},
		{"Microsoft.Storage/*", "Microsoft.Storage/storageAccounts/listKeys/action", true},
		{"Microsoft.Storage/*", "Microsoft.StorageSync/storageSyncServices/write", false},
		{"Microsoft.Storage*", "Microsoft.StorageSync/storageSyncServices/write", true},
		{"Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action", "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action", true},
		{"Microsoft.ManagedIdentity/userAssignedIdentities/*/read", "Microsoft.ManagedIdentity/userAssignedIdentities/read", true},
		{"Microsoft.ManagedIdentity/userAssignedIdentities/*/read", "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials/read", true},
		{"Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action", "Microsoft.ManagedIdentity/userAssignedIdentities/write", false},
		{"a/*/b/*/c", "a/b/c", true},
		{"a/*/b/*/c", "a/x/y/b/c", true},
		{"a/*/b", "a/bb", false},
		{"Microsoft.Compute/virtualMachines/runCommand/action", "Microsoft.Compute/virtualMachines/runCommand/action", true},
		{"", "x", false},
	} {
		if got := roles.Match(c.pattern, c.action); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.action, got, c.want)
		}
	}
}

func TestFromARM(t *testing.T) {
	const body = `{"id":"/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/11111111-2222-3333-4444-555555555555",
		"name":"11111111-2222-3333-4444-555555555555","type":"Microsoft.Authorization/roleDefinitions",
		"properties":{"roleName":"grant","type":"CustomRole","description":"d","assignableScopes":["/subscriptions/s"],
		"permissions":[{"actions":["Microsoft.Authorization/roleAssignments/write"],"notActions":[],"dataActions":[],"notDataActions":[]}]}}`
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	d, err := roles.FromARM(m)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "11111111-2222-3333-4444-555555555555" || d.Name != "grant" || !d.Custom || len(d.AssignableScopes) != 1 ||
		!d.Allows("Microsoft.Authorization/roleAssignments/write") || d.Allows("Microsoft.Authorization/roleAssignments/delete") {
		t.Errorf("read %+v", d)
	}
	if p, _ := roles.Privileged(d); !p {
		t.Error("a custom role that writes role assignments is not privileged")
	}
	for _, bad := range []string{`{}`, `{"properties":{"permissions":{}}}`, `{"properties":{"permissions":[{"actions":"*"}]}}`, `{"properties":{"permissions":[{"actions":[1]}]}}`} {
		var m map[string]any
		_ = json.Unmarshal([]byte(bad), &m)
		if _, err := roles.FromARM(m); err == nil {
			t.Errorf("FromARM(%s) did not fail", bad)
		}
	}
}
