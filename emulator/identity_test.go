package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
	"k8s.io/apimachinery/pkg/util/wait"
)

const (
	roleReader      = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	roleContributor = "b24988ac-6180-42a0-ab88-20f7382dd24c"
	roleOwner       = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
)

func (f *fixture) identities(t testing.TB, cred azcore.TokenCredential) (*armmsi.UserAssignedIdentitiesClient, *armmsi.FederatedIdentityCredentialsClient) {
	t.Helper()
	ids, err := armmsi.NewUserAssignedIdentitiesClient(subscriptionID, cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	fics, err := armmsi.NewFederatedIdentityCredentialsClient(subscriptionID, cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ids, fics
}

func (f *fixture) assignments(t testing.TB, cred azcore.TokenCredential) *armauthorization.RoleAssignmentsClient {
	t.Helper()
	c, err := armauthorization.NewRoleAssignmentsClient(subscriptionID, cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createIdentity makes a user-assigned identity federated with the test issuer for subject.
func (f *fixture) createIdentity(t testing.TB, cred azcore.TokenCredential, rg, name, subject string) armmsi.Identity {
	t.Helper()
	ids, fics := f.identities(t, cred)
	id, err := ids.CreateOrUpdate(ctxT(t), rg, name, armmsi.Identity{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fics.CreateOrUpdate(ctxT(t), rg, name, "k8s", armmsi.FederatedIdentityCredential{Properties: &armmsi.FederatedIdentityCredentialProperties{
		Issuer: to.Ptr(testIssuer), Subject: to.Ptr(subject), Audiences: []*string{to.Ptr(tokenExchangeAudience)},
	}}, nil); err != nil {
		t.Fatal(err)
	}
	return id.Identity
}

func TestFederatedCredentialCreatedThroughARMEnablesExchange(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	ids, fics := f.identities(t, platform)

	mi := f.createIdentity(t, platform, "team-a", "team-a-identity", workloadSubject)
	p := mi.Properties
	if p == nil || p.ClientID == nil || p.PrincipalID == nil || *p.TenantID != tenantID {
		t.Fatalf("identity properties not computed: %+v", p)
	}
	// Read-only values survive an update.
	again, err := ids.CreateOrUpdate(ctxT(t), "team-a", "team-a-identity", armmsi.Identity{Location: to.Ptr("westeurope"), Tags: map[string]*string{"x": to.Ptr("y")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *again.Properties.ClientID != *p.ClientID || *again.Properties.PrincipalID != *p.PrincipalID {
		t.Error("clientId or principalId changed on update")
	}

	if err := getToken(ctxT(t), f.workloadCred(t, *p.ClientID, workloadClaims)); err != nil {
		t.Fatalf("exchange with the new credential: %v", err)
	}
	entries := f.emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: *p.ClientID})
	if len(entries) != 1 || entries[0].PrincipalID != *p.PrincipalID || entries[0].Subject != workloadSubject {
		t.Errorf("audit of the exchange: %+v", entries)
	}

	if _, err := fics.Delete(ctxT(t), "team-a", "team-a-identity", "k8s", nil); err != nil {
		t.Fatal(err)
	}
	// A new credential object, so azidentity's token cache does not hide the refusal.
	err = getToken(ctxT(t), f.workloadCred(t, *p.ClientID, workloadClaims))
	if err == nil {
		t.Fatal("exchange still works after the federated credential was deleted")
	}
	mustContain(t, err.Error(), "AADSTS70021", "No matching federated identity record found")

	if _, err := ids.Delete(ctxT(t), "team-a", "team-a-identity", nil); err != nil {
		t.Fatal(err)
	}
	err = getToken(ctxT(t), f.workloadCred(t, *p.ClientID, workloadClaims))
	if err == nil {
		t.Fatal("exchange works for a deleted identity")
	}
	mustContain(t, err.Error(), "AADSTS700016")
}

func TestAtMostTwentyFederatedCredentials(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	ids, fics := f.identities(t, platform)
	if _, err := ids.CreateOrUpdate(ctxT(t), "team-a", "crowded", armmsi.Identity{Location: to.Ptr("westeurope")}, nil); err != nil {
		t.Fatal(err)
	}
	fic := func(i int) armmsi.FederatedIdentityCredential {
		return armmsi.FederatedIdentityCredential{Properties: &armmsi.FederatedIdentityCredentialProperties{
			Issuer: to.Ptr(testIssuer), Subject: to.Ptr(fmt.Sprintf("system:serviceaccount:ns-%d:azure", i)), Audiences: []*string{to.Ptr(tokenExchangeAudience)},
		}}
	}
	for i := range 20 {
		if _, err := fics.CreateOrUpdate(ctxT(t), "team-a", "crowded", fmt.Sprintf("fic-%d", i), fic(i), nil); err != nil {
			t.Fatalf("credential %d: %v", i, err)
		}
	}
	_, err := fics.CreateOrUpdate(ctxT(t), "team-a", "crowded", "fic-20", fic(20), nil)
	if err == nil {
		t.Fatal("a 21st federated credential was accepted")
	}
	if status, _ := responseError(t, err); status != 400 {
		t.Errorf("status %d, want 400", status)
	}
	mustContain(t, err.Error(), "Too many Federated Identity Credentials")
	// Updating one of the twenty is still fine.
	if _, err := fics.CreateOrUpdate(ctxT(t), "team-a", "crowded", "fic-3", fic(3), nil); err != nil {
		t.Errorf("updating an existing credential: %v", err)
	}
}

func TestRBACFollowsRoleAssignments(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	f.createGroup(t, platform, "team-b")
	mi := f.createIdentity(t, platform, "team-a", "team-a-identity", workloadSubject)
	workload := f.workloadCred(t, *mi.Properties.ClientID, workloadClaims)
	oid, appid := *mi.Properties.PrincipalID, *mi.Properties.ClientID
	groupA := rgScope + "team-a"
	res := f.resources(t, workload)
	widget := groupA + "/providers/Microsoft.Test/widgets/w"

	expectForbidden := func(t *testing.T, err error, action, scope string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s allowed; want 403", action)
		}
		if status, code := responseError(t, err); status != 403 || code != "AuthorizationFailed" {
			t.Fatalf("got %d %s, want 403 AuthorizationFailed", status, code)
		}
		mustContain(t, err.Error(), fmt.Sprintf("The client '%s' with object id '%s' does not have authorization to perform action '%s' over scope '%s'", appid, oid, action, scope))
	}

	_, err := res.GetByID(ctxT(t), groupA, "2021-04-01", nil)
	expectForbidden(t, err, "Microsoft.Resources/subscriptions/resourceGroups/read", groupA)

	ras := f.assignments(t, platform)
	assign := func(name, role, scope string) {
		t.Helper()
		_, err := ras.Create(ctxT(t), scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(oid), RoleDefinitionID: to.Ptr("/subscriptions/" + subscriptionID + "/providers/Microsoft.Authorization/roleDefinitions/" + role),
		}}, nil)
		if err != nil {
			t.Fatalf("assign %s: %v", role, err)
		}
	}
	assign("1e0e0e0e-0000-4000-8000-000000000001", roleReader, groupA)
	if _, err := res.GetByID(ctxT(t), groupA, "2021-04-01", nil); err != nil {
		t.Fatalf("Reader cannot read: %v", err)
	}
	_, err = put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
	expectForbidden(t, err, "Microsoft.Test/widgets/write", widget)

	assign("1e0e0e0e-0000-4000-8000-000000000002", roleContributor, groupA)
	if _, err := put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Fatalf("Contributor cannot write: %v", err)
	}
	// The assignment is scoped: the neighbouring group stays closed.
	other := rgScope + "team-b/providers/Microsoft.Test/widgets/w"
	_, err = put(t, res, other, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
	expectForbidden(t, err, "Microsoft.Test/widgets/write", other)
	// Contributor may not grant roles: no escalation to Owner.
	_, err = f.assignments(t, workload).Create(ctxT(t), groupA, "1e0e0e0e-0000-4000-8000-000000000003", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: to.Ptr(oid), RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + roleOwner),
	}}, nil)
	expectForbidden(t, err, "Microsoft.Authorization/roleAssignments/write", groupA+"/providers/Microsoft.Authorization/roleAssignments/1e0e0e0e-0000-4000-8000-000000000003")

	// Removing the assignment closes the door again at once.
	if _, err := ras.Delete(ctxT(t), groupA, "1e0e0e0e-0000-4000-8000-000000000002", nil); err != nil {
		t.Fatal(err)
	}
	_, err = put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
	expectForbidden(t, err, "Microsoft.Test/widgets/write", widget)

	var listed int
	for pager := ras.NewListForScopePager(groupA, nil); pager.More(); {
		page, err := pager.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		listed += len(page.Value)
	}
	if listed != 2 { // the Reader at the group and the platform's Owner on the subscription
		t.Errorf("listed %d role assignments at the group, want 2", listed)
	}
}

func TestRoleAssignmentValidation(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	mi := f.createIdentity(t, platform, "team-a", "id", workloadSubject)
	ras := f.assignments(t, platform)
	scope := rgScope + "team-a"
	params := func(principal, role string) armauthorization.RoleAssignmentCreateParameters {
		return armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(principal), RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + role)}}
	}
	if _, err := ras.Create(ctxT(t), scope, "2f0f0f0f-0000-4000-8000-000000000001", params(*mi.Properties.PrincipalID, roleReader), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, raName, principal, role, code string
	}{
		{"duplicate under another name", "2f0f0f0f-0000-4000-8000-000000000002", *mi.Properties.PrincipalID, roleReader, "RoleAssignmentExists"},
		{"name is not a GUID", "reader", *mi.Properties.PrincipalID, roleReader, "InvalidRoleAssignmentId"},
		{"unknown role", "2f0f0f0f-0000-4000-8000-000000000003", *mi.Properties.PrincipalID, "00000000-0000-4000-8000-000000000000", "RoleDefinitionDoesNotExist"},
		{"unknown principal", "2f0f0f0f-0000-4000-8000-000000000004", "00000000-0000-4000-8000-000000000009", roleReader, "PrincipalNotFound"},
		{"change of principal", "2f0f0f0f-0000-4000-8000-000000000001", *mi.Properties.PrincipalID, roleContributor, "RoleAssignmentUpdateNotPermitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ras.Create(ctxT(t), scope, tt.raName, params(tt.principal, tt.role), nil)
			if err == nil {
				t.Fatal("accepted")
			}
			if _, code := responseError(t, err); code != tt.code {
				t.Errorf("code %s, want %s", code, tt.code)
			}
		})
	}
}

func TestWrongAudienceTokenIsRejected(t *testing.T) {
	f := newFixture(t)
	opts := f.armOptions()
	opts.Cloud.Services = maps.Clone(opts.Cloud.Services)
	svc := opts.Cloud.Services[cloud.ResourceManager]
	svc.Audience = "https://vault.azure.net"
	opts.Cloud.Services[cloud.ResourceManager] = svc
	c, err := armresources.NewClient(subscriptionID, f.platformCred(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetByID(ctxT(t), rgScope+"x", "2021-04-01", nil)
	if err == nil {
		t.Fatal("token for another audience accepted")
	}
	status, code := responseError(t, err)
	if status != 401 || code != "InvalidAuthenticationTokenAudience" {
		t.Errorf("got %d %s", status, code)
	}
	e := f.emu.Audit(emulator.AuditFilter{Service: "arm", Limit: 1})
	if len(e) != 1 || e[0].Status != 401 {
		t.Errorf("audit: %+v", e)
	}
}

func TestBuiltInRolesGrantWhatAzureGrants(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	f.createGroup(t, platform, "roles")
	scope := rgScope + "roles"
	// A principal the role holders try to grant Reader to.
	target := f.createIdentity(t, platform, "roles", "target", "system:serviceaccount:x:y")
	tests := []struct {
		role                    string
		read, write, grantRoles bool
	}{
		{"Reader", true, false, false},
		{"Contributor", true, true, false},
		{"Owner", true, true, true},
		{"User Access Administrator", true, false, true},
		{"Role Based Access Control Administrator", true, false, true},
	}
	for i, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			subject := fmt.Sprintf("system:serviceaccount:roles:sa-%d", i)
			mi := f.createIdentity(t, platform, "roles", fmt.Sprintf("holder-%d", i), subject)
			if err := f.emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{PrincipalID: *mi.Properties.PrincipalID, Role: tt.role, Scope: scope}}}); err != nil {
				t.Fatal(err)
			}
			cred := f.workloadCred(t, *mi.Properties.ClientID, func() map[string]any {
				return assertion(testIssuer, subject, []string{tokenExchangeAudience}, time.Hour)
			})
			_, err := f.groups(t, cred).Get(ctxT(t), "roles", nil)
			checkAllowed(t, "read", err, tt.read)
			_, err = put(t, f.resources(t, cred), fmt.Sprintf("%s/providers/Microsoft.Test/widgets/w%d", scope, i), "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
			checkAllowed(t, "write", err, tt.write)
			_, err = f.assignments(t, cred).Create(ctxT(t), scope, fmt.Sprintf("3a3a3a3a-0000-4000-8000-00000000000%d", i), armauthorization.RoleAssignmentCreateParameters{
				Properties: &armauthorization.RoleAssignmentProperties{PrincipalID: target.Properties.PrincipalID,
					RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + roleReader)}}, nil)
			if tt.grantRoles && err != nil {
				// Only the first granting role creates it; the others meet the duplicate.
				if _, code := responseError(t, err); code != "RoleAssignmentExists" {
					t.Errorf("grant roles: %v", err)
				}
			} else if !tt.grantRoles {
				checkAllowed(t, "grant roles", err, false)
			}
		})
	}
}

func checkAllowed(t *testing.T, what string, err error, want bool) {
	t.Helper()
	if want {
		if err != nil {
			t.Errorf("%s refused: %v", what, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s allowed", what)
		return
	}
	if status, code := responseError(t, err); status != 403 || code != "AuthorizationFailed" {
		t.Errorf("%s: %d %s, want 403 AuthorizationFailed", what, status, code)
	}
}

// Azure refuses concurrent federated credential writes under one identity;
// written one after the other they all succeed, and other identities are not
// held up.
func TestConcurrentFederatedCredentialWritesAreRefused(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.FICWriteSettle = emulator.Duration(300 * time.Millisecond) })
	platform := f.platformCred(t)
	f.createGroup(t, platform, "team-a")
	ids, fics := f.identities(t, platform)
	for _, name := range []string{"busy", "other"} {
		if _, err := ids.CreateOrUpdate(ctxT(t), "team-a", name, armmsi.Identity{Location: to.Ptr("westeurope")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	fic := func(i int) armmsi.FederatedIdentityCredential {
		return armmsi.FederatedIdentityCredential{Properties: &armmsi.FederatedIdentityCredentialProperties{
			Issuer: to.Ptr(testIssuer), Subject: to.Ptr(fmt.Sprintf("system:serviceaccount:ns-%d:azure", i)), Audiences: []*string{to.Ptr(tokenExchangeAudience)},
		}}
	}
	errs := make(chan error, 3)
	for i, identity := range []string{"busy", "busy", "other"} {
		go func() {
			if i == 1 {
				time.Sleep(100 * time.Millisecond) // while the first is in flight
			}
			_, err := fics.CreateOrUpdate(ctxT(t), "team-a", identity, fmt.Sprintf("fic-%d", i), fic(i), nil)
			errs <- err
		}()
	}
	var refused int
	for range 3 {
		if err := <-errs; err != nil {
			status, code := responseError(t, err)
			if status != 409 || code != "ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity" {
				t.Fatalf("got %d %s, want 409 ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity", status, code)
			}
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d writes refused, want the one sent while another of the same identity was in flight", refused)
	}
	if _, err := fics.CreateOrUpdate(ctxT(t), "team-a", "busy", "fic-1", fic(1), nil); err != nil {
		t.Errorf("written after the first finished: %v", err)
	}
}

// A role assignment for a principal created a moment ago is refused with
// PrincipalNotFound while Entra replicates it, unless the request names its
// principalType (Azure's advice), and succeeds once replication is done.
func TestNewPrincipalReplicates(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.PrincipalReplication = emulator.Duration(300 * time.Millisecond) })
	cred := f.platformCred(t)
	f.createGroup(t, cred, "repl")
	ids, _ := f.identities(t, cred)
	mk := func(name string) string {
		id, err := ids.CreateOrUpdate(ctxT(t), "repl", name, armmsi.Identity{Location: to.Ptr("westeurope")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return *id.Properties.PrincipalID
	}
	ras := f.assignments(t, cred)
	scope := rgScope + "repl"
	reader := "/subscriptions/" + subscriptionID + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	assign := func(name, principal string, typed bool) error {
		props := &armauthorization.RoleAssignmentProperties{PrincipalID: to.Ptr(principal), RoleDefinitionID: to.Ptr(reader)}
		if typed {
			props.PrincipalType = to.Ptr(armauthorization.PrincipalTypeServicePrincipal)
		}
		_, err := ras.Create(ctxT(t), scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: props}, nil)
		return err
	}

	fresh := mk("fresh")
	err := assign("0b7a1c2d-0000-4000-8000-000000000001", fresh, false)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 400 || re.ErrorCode != "PrincipalNotFound" || !strings.Contains(err.Error(), "replication delay") {
		t.Fatalf("assignment for a principal created just now: %v, want 400 PrincipalNotFound naming the replication delay", err)
	}
	if err := assign("0b7a1c2d-0000-4000-8000-000000000002", mk("typed"), true); err != nil {
		t.Errorf("with principalType the assignment is made at once: %v", err)
	}
	_ = wait.PollUntilContextTimeout(ctxT(t), 50*time.Millisecond, 10*time.Second, false, func(context.Context) (bool, error) {
		err = assign("0b7a1c2d-0000-4000-8000-000000000001", fresh, false)
		return err == nil, nil
	})
	if err != nil {
		t.Errorf("once replicated, the assignment is still refused: %v", err)
	}
}

// ARM answers a role assignment's DELETE with the deleted assignment, and a
// GET of a missing one with 404 RoleAssignmentNotFound.
func TestRoleAssignmentDeleteAndNotFoundShapes(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "shape")
	ids, _ := f.identities(t, cred)
	id, err := ids.CreateOrUpdate(ctxT(t), "shape", "app", armmsi.Identity{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ras := f.assignments(t, cred)
	scope, name := rgScope+"shape", "0b7a1c2d-0000-4000-8000-00000000000a"
	reader := "/subscriptions/" + subscriptionID + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	if _, err := ras.Create(ctxT(t), scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: id.Properties.PrincipalID, RoleDefinitionID: to.Ptr(reader)}}, nil); err != nil {
		t.Fatal(err)
	}
	del, err := ras.Delete(ctxT(t), scope, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if del.ID == nil || !strings.HasSuffix(*del.ID, name) || del.Properties == nil || *del.Properties.PrincipalID != *id.Properties.PrincipalID {
		t.Errorf("DELETE answered %+v, want the deleted assignment", del.RoleAssignment)
	}
	_, err = ras.Get(ctxT(t), scope, name, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 404 || re.ErrorCode != "RoleAssignmentNotFound" {
		t.Errorf("GET of a deleted assignment: %v, want 404 RoleAssignmentNotFound", err)
	}
}
