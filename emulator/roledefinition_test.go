package emulator_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/api/authorization/roles"
	"github.com/aztenant/aztenant/emulator"
)

const subScope = "/subscriptions/" + subscriptionID

func (f *fixture) roleDefinitions(t testing.TB, cred azcore.TokenCredential) *armauthorization.RoleDefinitionsClient {
	t.Helper()
	c, err := armauthorization.NewRoleDefinitionsClient(cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func customRole(name string, scopes []string, actions ...string) armauthorization.RoleDefinition {
	ptrs := func(s []string) []*string {
		out := make([]*string, len(s))
		for i := range s {
			out[i] = to.Ptr(s[i])
		}
		return out
	}
	return armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(name), Description: to.Ptr("test role " + name), RoleType: to.Ptr("CustomRole"),
		AssignableScopes: ptrs(scopes),
		Permissions:      []*armauthorization.Permission{{Actions: ptrs(actions), NotActions: []*string{}, DataActions: []*string{}, NotDataActions: []*string{}}},
	}}
}

func strs(p []*string) []string {
	out := make([]string, len(p))
	for i, s := range p {
		out[i] = *s
	}
	return out
}

// Every built-in role of aztenant's table is served with its real GUID and actions, as a
// BuiltInRole, at tenant and subscription level; an unknown GUID is Azure's 404.
func TestBuiltInRoleDefinitionsAreTheTable(t *testing.T) {
	f := newFixture(t)
	rds := f.roleDefinitions(t, f.platformCred(t))
	for _, want := range roles.BuiltIn() {
		got, err := rds.Get(ctxT(t), subScope, want.ID, nil)
		if err != nil {
			t.Fatalf("%s: %v", want.Name, err)
		}
		p := got.Properties
		if *got.Name != want.ID || *got.ID != subScope+"/providers/Microsoft.Authorization/roleDefinitions/"+want.ID ||
			*p.RoleName != want.Name || *p.RoleType != "BuiltInRole" || len(p.Permissions) != len(want.Permissions) ||
			!slices.Equal(strs(p.Permissions[0].Actions), want.Permissions[0].Actions) ||
			!slices.Equal(strs(p.Permissions[0].DataActions), want.Permissions[0].DataActions) {
			t.Errorf("%s served as %+v", want.Name, p)
		}
	}
	reader, err := rds.GetByID(ctxT(t), "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", nil)
	if err != nil || *reader.Properties.RoleName != "Reader" {
		t.Errorf("Reader by tenant-level ID: %+v, %v", reader.Properties, err)
	}
	_, err = rds.Get(ctxT(t), subScope, "acdd72a7-3c2f-4223-9b18-0faad56c6cf9", nil)
	if status, code := responseError(t, err); status != 404 || code != "RoleDefinitionDoesNotExist" {
		t.Errorf("a GUID that is no role: %d %s", status, code)
	}
	var names []string
	for pager := rds.NewListPager(subScope, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr("roleName eq 'Key Vault Administrator'")}); pager.More(); {
		page, err := pager.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, rd := range page.Value {
			names = append(names, *rd.Properties.RoleName)
		}
	}
	if !slices.Equal(names, []string{"Key Vault Administrator"}) {
		t.Errorf("list filtered by roleName: %v", names)
	}
}

// A custom role is written, read, updated and deleted with Azure's client and status
// codes, and an assignment of it grants exactly its actions: a change to the role applies
// at once, and a custom role that may write role assignments lets its holder grant roles.
func TestCustomRoleDefinitionsGrantTheirActions(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	mi := f.createIdentity(t, platform, "team-a", "team-a-identity", workloadSubject)
	workload := f.workloadCred(t, *mi.Properties.ClientID, workloadClaims)
	oid := *mi.Properties.PrincipalID
	groupA := rgScope + "team-a"
	widget := groupA + "/providers/Microsoft.Test/widgets/w"
	rds := f.roleDefinitions(t, platform)
	const writerID = "3a0a0a0a-0000-4000-8000-000000000001"

	// Writing a role definition needs Microsoft.Authorization/roleDefinitions/write.
	_, err := f.roleDefinitions(t, workload).CreateOrUpdate(ctxT(t), subScope, writerID, customRole("widget writer", []string{subScope}, "Microsoft.Test/widgets/write"), nil)
	if status, code := responseError(t, err); status != 403 || code != "AuthorizationFailed" {
		t.Fatalf("a principal without roles wrote a role definition: %d %s", status, code)
	}
	mustContain(t, err.Error(), "Microsoft.Authorization/roleDefinitions/write")

	created, err := rds.CreateOrUpdate(ctxT(t), subScope, writerID, customRole("widget writer", []string{subScope}, "Microsoft.Test/widgets/write", "Microsoft.Test/widgets/read"), nil)
	if err != nil {
		t.Fatalf("create (201): %v", err)
	}
	if *created.ID != subScope+"/providers/Microsoft.Authorization/roleDefinitions/"+writerID || *created.Properties.RoleType != "CustomRole" {
		t.Errorf("created %s %+v", *created.ID, created.Properties)
	}
	got, err := rds.Get(ctxT(t), subScope, writerID, nil)
	if err != nil || *got.Properties.RoleName != "widget writer" || *got.Properties.RoleType != "CustomRole" {
		t.Fatalf("get: %+v, %v", got.Properties, err)
	}
	if byID, err := rds.GetByID(ctxT(t), *created.ID, nil); err != nil || *byID.Name != writerID {
		t.Errorf("get by ID: %v", err)
	}

	res := f.resources(t, workload)
	_, err = put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
	if status, _ := responseError(t, err); status != 403 {
		t.Fatalf("write before the assignment: %d", status)
	}
	ras := f.assignments(t, platform)
	if _, err := ras.Create(ctxT(t), groupA, "3b0b0b0b-0000-4000-8000-000000000001", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: to.Ptr(oid), RoleDefinitionID: created.ID,
	}}, nil); err != nil {
		t.Fatalf("assign the custom role: %v", err)
	}
	if _, err := put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Fatalf("the custom role does not grant its write: %v", err)
	}
	// Only its actions: no delete, and nothing of the group itself.
	err = del(t, res, widget, "2024-01-01")
	mustContain(t, errString(err), "Microsoft.Test/widgets/delete")
	_, err = res.GetByID(ctxT(t), groupA, "2021-04-01", nil)
	mustContain(t, errString(err), "Microsoft.Resources/subscriptions/resourceGroups/read")

	// An update answers 201 as well, and takes the write away at once.
	if _, err := rds.CreateOrUpdate(ctxT(t), subScope, writerID, customRole("widget writer", []string{subScope}, "Microsoft.Test/widgets/read"), nil); err != nil {
		t.Fatalf("update (201): %v", err)
	}
	_, err = put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
	mustContain(t, errString(err), "Microsoft.Test/widgets/write")

	// A custom role with role assignment writes is what it says: its holder grants roles.
	const granterID = "3a0a0a0a-0000-4000-8000-000000000002"
	granter, err := rds.CreateOrUpdate(ctxT(t), subScope, granterID, customRole("granter", []string{groupA}, "Microsoft.Authorization/roleAssignments/write"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ras.Create(ctxT(t), groupA, "3b0b0b0b-0000-4000-8000-000000000002", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: to.Ptr(oid), RoleDefinitionID: granter.ID,
	}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.assignments(t, workload).Create(ctxT(t), groupA, "3b0b0b0b-0000-4000-8000-000000000003", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: to.Ptr(oid), RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + roleContributor),
	}}, nil); err != nil {
		t.Fatalf("the granter role does not grant role assignment writes: %v", err)
	}
	if _, err := put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Errorf("Contributor it granted itself does not write: %v", err)
	}

	// Listing at the group shows both custom roles (assignable at the subscription and at
	// the group) next to the built-in ones.
	var custom []string
	for pager := rds.NewListPager(groupA, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr("type eq 'CustomRole'")}); pager.More(); {
		page, err := pager.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, rd := range page.Value {
			custom = append(custom, *rd.Properties.RoleName)
		}
	}
	slices.Sort(custom)
	if !slices.Equal(custom, []string{"granter", "widget writer"}) {
		t.Errorf("custom roles at the group: %v", custom)
	}

	// Deleting answers 200 with the definition, then 204; the role is gone and grants
	// nothing more.
	deleted, err := rds.Delete(ctxT(t), subScope, writerID, nil)
	if err != nil || deleted.Name == nil || *deleted.Name != writerID {
		t.Fatalf("delete: %+v, %v", deleted, err)
	}
	if _, err := rds.Delete(ctxT(t), subScope, writerID, nil); err != nil {
		t.Errorf("delete again (204): %v", err)
	}
	_, err = rds.Get(ctxT(t), subScope, writerID, nil)
	if status, code := responseError(t, err); status != 404 || code != "RoleDefinitionDoesNotExist" {
		t.Errorf("get after delete: %d %s", status, code)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Who may write role definitions is decided by the roles' actions: Role Based Access
// Control Administrator (role assignments only) may not, User Access Administrator
// (Microsoft.Authorization/*) may. Invalid definitions are refused as Azure does.
func TestRoleDefinitionWritesNeedTheAction(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	mi := f.createIdentity(t, platform, "team-a", "team-a-identity", workloadSubject)
	oid := *mi.Properties.PrincipalID
	workload := f.workloadCred(t, *mi.Properties.ClientID, workloadClaims)
	ras := f.assignments(t, platform)
	assign := func(name, role string) {
		t.Helper()
		if _, err := ras.Create(ctxT(t), subScope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(oid), RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + role),
		}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	mine := f.roleDefinitions(t, workload)
	def := customRole("mine", []string{subScope}, "*/read")
	const id = "3c0c0c0c-0000-4000-8000-000000000001"

	rbacAdmin, _ := roles.ByName("Role Based Access Control Administrator")
	assign("3d0d0d0d-0000-4000-8000-000000000001", rbacAdmin.ID)
	_, err := mine.CreateOrUpdate(ctxT(t), subScope, id, def, nil)
	if status, code := responseError(t, err); status != 403 || code != "AuthorizationFailed" {
		t.Fatalf("Role Based Access Control Administrator wrote a role definition: %d %s", status, code)
	}
	uaa, _ := roles.ByName("User Access Administrator")
	assign("3d0d0d0d-0000-4000-8000-000000000002", uaa.ID)
	if _, err := mine.CreateOrUpdate(ctxT(t), subScope, id, def, nil); err != nil {
		t.Fatalf("User Access Administrator cannot write a role definition: %v", err)
	}

	rds := f.roleDefinitions(t, platform)
	for _, c := range []struct {
		name, id string
		def      armauthorization.RoleDefinition
		status   int
		code     string
	}{
		{"name is not a GUID", "mine", customRole("other", []string{subScope}, "*/read"), 400, "InvalidRoleDefinitionId"},
		{"a built-in role", "acdd72a7-3385-48ef-bd42-f606fba81ae7", customRole("Reader 2", []string{subScope}, "*"), 403, "RoleDefinitionUpdateNotPermitted"},
		{"the name of another custom role", "3c0c0c0c-0000-4000-8000-000000000002", customRole("mine", []string{subScope}, "*/read"), 409, "RoleDefinitionWithSameNameExists"},
		{"the name of a built-in role", "3c0c0c0c-0000-4000-8000-000000000002", customRole("Owner", []string{subScope}, "*/read"), 409, "RoleDefinitionWithSameNameExists"},
		{"no assignable scope", "3c0c0c0c-0000-4000-8000-000000000002", customRole("x", nil, "*/read"), 400, "InvalidRoleDefinition"},
		{"assignable at the root", "3c0c0c0c-0000-4000-8000-000000000002", customRole("x", []string{"/"}, "*/read"), 400, "InvalidRoleDefinition"},
		{"assignable at a missing group", "3c0c0c0c-0000-4000-8000-000000000002", customRole("x", []string{rgScope + "nope"}, "*/read"), 400, "InvalidRoleDefinition"},
	} {
		_, err := rds.CreateOrUpdate(ctxT(t), subScope, c.id, c.def, nil)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if status, code := responseError(t, err); status != c.status || code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, status, code, c.status, c.code)
		}
	}
	_, err = rds.Delete(ctxT(t), subScope, "acdd72a7-3385-48ef-bd42-f606fba81ae7", nil)
	if status, _ := responseError(t, err); status != 403 {
		t.Errorf("deleting Reader: %d", status)
	}
}

// Custom roles and their assignments survive a restart from the state file.
func TestCustomRolesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	withState := func(c *emulator.Config) {
		c.StateFile = filepath.Join(dir, "state.json")
		c.SigningKeyPEM = ""
		c.CAFile = filepath.Join(dir, "ca.pem")
	}
	first := newFixture(t, withState)
	platform := first.platformCred(t)
	first.createGroup(t, platform, "team-a")
	mi := first.createIdentity(t, platform, "team-a", "id", workloadSubject)
	const id = "3e0e0e0e-0000-4000-8000-000000000001"
	rd, err := first.roleDefinitions(t, platform).CreateOrUpdate(ctxT(t), subScope, id, customRole("widget writer", []string{subScope}, "Microsoft.Test/widgets/write"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Assigned at the subscription: the assignment's ID sorts before the role's.
	if _, err := first.assignments(t, platform).Create(ctxT(t), subScope, "3f0f0f0f-0000-4000-8000-000000000001", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: mi.Properties.PrincipalID, RoleDefinitionID: rd.ID,
	}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := first.emu.Close(); err != nil {
		t.Fatal(err)
	}
	second := newFixture(t, withState)
	if got, err := second.roleDefinitions(t, second.platformCred(t)).Get(ctxT(t), subScope, id, nil); err != nil || *got.Properties.RoleName != "widget writer" {
		t.Fatalf("custom role after restart: %v", err)
	}
	res := second.resources(t, second.workloadCred(t, *mi.Properties.ClientID, workloadClaims))
	if _, err := put(t, res, rgScope+"team-a/providers/Microsoft.Test/widgets/w", "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Errorf("the custom role's grant did not survive the restart: %v", err)
	}
}

// The identity roles do what their actions say: Managed Identity Contributor federates an
// identity, Managed Identity Operator reads it (its userAssignedIdentities/*/read covers
// userAssignedIdentities/read) but may not federate it, Reader neither writes.
func TestIdentityRolesByTheirActions(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "ids")
	scope := rgScope + "ids"
	f.createIdentity(t, platform, "ids", "target", "system:serviceaccount:x:y")
	for i, c := range []struct {
		role           string
		read, federate bool
	}{
		{"Reader", true, false},
		{"Managed Identity Operator", true, false},
		{"Managed Identity Contributor", true, true},
	} {
		t.Run(c.role, func(t *testing.T) {
			subject := fmt.Sprintf("system:serviceaccount:ids:sa-%d", i)
			holder := f.createIdentity(t, platform, "ids", fmt.Sprintf("holder-%d", i), subject)
			if err := f.emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{PrincipalID: *holder.Properties.PrincipalID, Role: c.role, Scope: scope}}}); err != nil {
				t.Fatal(err)
			}
			cred := f.workloadCred(t, *holder.Properties.ClientID, func() map[string]any {
				return assertion(testIssuer, subject, []string{tokenExchangeAudience}, time.Hour)
			})
			ids, fics := f.identities(t, cred)
			_, err := ids.Get(ctxT(t), "ids", "target", nil)
			checkAllowed(t, "read the identity", err, c.read)
			_, err = fics.CreateOrUpdate(ctxT(t), "ids", "target", fmt.Sprintf("elsewhere-%d", i), armmsi.FederatedIdentityCredential{Properties: &armmsi.FederatedIdentityCredentialProperties{
				Issuer: to.Ptr(otherIssuer), Subject: to.Ptr("system:serviceaccount:attacker:sa"), Audiences: []*string{to.Ptr(tokenExchangeAudience)},
			}}, nil)
			checkAllowed(t, "federate the identity", err, c.federate)
		})
	}
}
