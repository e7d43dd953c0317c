package onboarding

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/internal/ownermarker"
)

// azure is the platform identity's view of one subscription.
type azure struct {
	subscription string
	groups       *armresources.ResourceGroupsClient
	resources    *armresources.Client
	identities   *armmsi.UserAssignedIdentitiesClient
	federated    *armmsi.FederatedIdentityCredentialsClient
	roles        *armauthorization.RoleAssignmentsClient
}

func newAzure(subscription string, cred azcore.TokenCredential, opts *arm.ClientOptions) (*azure, error) {
	a := &azure{subscription: subscription}
	var err error
	if a.groups, err = armresources.NewResourceGroupsClient(subscription, cred, opts); err != nil {
		return nil, err
	}
	if a.resources, err = armresources.NewClient(subscription, cred, opts); err != nil {
		return nil, err
	}
	if a.identities, err = armmsi.NewUserAssignedIdentitiesClient(subscription, cred, opts); err != nil {
		return nil, err
	}
	if a.federated, err = armmsi.NewFederatedIdentityCredentialsClient(subscription, cred, opts); err != nil {
		return nil, err
	}
	if a.roles, err = armauthorization.NewRoleAssignmentsClient(subscription, cred, opts); err != nil {
		return nil, err
	}
	return a, nil
}

// ensureResourceGroup creates the group when missing. created is true when
// this Tenant's onboarding created it (now, or earlier: the tag says so).
func (a *azure) ensureResourceGroup(ctx context.Context, name, location, tenant string) (id string, created bool, err error) {
	got, err := a.groups.Get(ctx, name, nil)
	switch {
	case err == nil:
		return *got.ID, tagged(got.Tags, tenant), nil
	case !isNotFound(err):
		return "", false, azureError("read resource group "+name, err)
	}
	put, err := a.groups.CreateOrUpdate(ctx, name, armresources.ResourceGroup{
		Location: to.Ptr(location), Tags: map[string]*string{TagOnboardedBy: to.Ptr(tenant)},
	}, nil)
	if err != nil {
		return "", false, azureError("create resource group "+name, err)
	}
	return *put.ID, true, nil
}

// deleteResourceGroupIfEmpty deletes a group onboarding created, unless
// something else lives in it now: onboarding deletes only what it created.
func (a *azure) deleteResourceGroupIfEmpty(ctx context.Context, name string) (kept []string, err error) {
	pager := a.resources.NewListByResourceGroupPager(name, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, azureError("list resources of resource group "+name, err)
		}
		for _, r := range page.Value {
			if r.ID != nil {
				kept = append(kept, *r.ID)
			}
		}
	}
	if len(kept) > 0 {
		return kept, nil
	}
	poller, err := a.groups.BeginDelete(ctx, name, nil)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, azureError("delete resource group "+name, err)
	}
	if _, err := poller.PollUntilDone(ctx, nil); err != nil && !isNotFound(err) {
		return nil, azureError("delete resource group "+name, err)
	}
	return nil, nil
}

// managedIdentity is what the later steps need of a namespace's identity.
type managedIdentity struct {
	id, clientID, principalID, tenantID string
	created                             bool
}

func (a *azure) ensureIdentity(ctx context.Context, rg, name, location, tenant string) (*managedIdentity, error) {
	got, err := a.identities.Get(ctx, rg, name, nil)
	var mi armmsi.Identity
	created := false
	switch {
	case err == nil:
		mi, created = got.Identity, tagged(got.Tags, tenant)
	case !isNotFound(err):
		return nil, azureError("read managed identity "+name, err)
	default:
		put, err := a.identities.CreateOrUpdate(ctx, rg, name, armmsi.Identity{
			Location: to.Ptr(location), Tags: map[string]*string{TagOnboardedBy: to.Ptr(tenant)},
		}, nil)
		if err != nil {
			return nil, azureError("create managed identity "+name, err)
		}
		mi, created = put.Identity, true
	}
	p := mi.Properties
	if mi.ID == nil || p == nil || p.ClientID == nil || p.PrincipalID == nil || p.TenantID == nil {
		return nil, &StepError{Reason: ReasonAzureError, Message: "managed identity " + name + " has no clientId, principalId or tenantId yet"}
	}
	return &managedIdentity{id: *mi.ID, clientID: *p.ClientID, principalID: *p.PrincipalID, tenantID: *p.TenantID, created: created}, nil
}

// ensureFederatedCredential makes the identity trust exactly subject at
// issuer. created is true when it did not exist before.
func (a *azure) ensureFederatedCredential(ctx context.Context, rg, identityName, name, issuer, subject string) (id string, created bool, err error) {
	got, err := a.federated.Get(ctx, rg, identityName, name, nil)
	switch {
	case err == nil:
		if p := got.Properties; p != nil && str(p.Issuer) == issuer && str(p.Subject) == subject &&
			len(p.Audiences) == 1 && str(p.Audiences[0]) == TokenAudience {
			return *got.ID, false, nil
		}
	case !isNotFound(err):
		return "", false, azureError("read federated credential "+name, err)
	default:
		created = true
	}
	put, err := a.federated.CreateOrUpdate(ctx, rg, identityName, name, armmsi.FederatedIdentityCredential{
		Properties: &armmsi.FederatedIdentityCredentialProperties{
			Issuer: to.Ptr(issuer), Subject: to.Ptr(subject), Audiences: []*string{to.Ptr(TokenAudience)},
		},
	}, nil)
	if err != nil {
		return "", false, azureError("write federated credential "+name, err)
	}
	return *put.ID, created, nil
}

// ensureRoleAssignment assigns a role at scope under a deterministic name.
// An equal assignment made by hand under another name is left as it is (and
// not recorded, so offboarding leaves it too).
func (a *azure) ensureRoleAssignment(ctx context.Context, scope, name, role, roleDefinitionID, principalID string) (id string, created bool, err error) {
	got, err := a.roles.Get(ctx, scope, name, nil)
	switch {
	case err == nil:
		return *got.ID, true, nil // only onboarding uses onboarding's names
	case !isNotFound(err):
		return "", false, azureError("read role assignment at "+scope, err)
	}
	put, err := a.roles.Create(ctx, scope, name, armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{
			RoleDefinitionID: to.Ptr(roleDefinitionID), PrincipalID: to.Ptr(principalID),
			PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal),
			Description:   to.Ptr("aztenant onboarding"),
		},
	}, nil)
	if hasCode(err, "RoleAssignmentExists") {
		return "", false, nil
	}
	if err != nil {
		return "", false, azureError(fmt.Sprintf("assign role %s at %s", role, scope), err)
	}
	return *put.ID, true, nil
}

func (a *azure) deleteRoleAssignment(ctx context.Context, id string) error {
	if _, err := a.roles.DeleteByID(ctx, id, nil); err != nil && !isNotFound(err) {
		return azureError("delete role assignment "+id, err)
	}
	return nil
}

func (a *azure) deleteFederatedCredential(ctx context.Context, rg, identityName, name string) error {
	if _, err := a.federated.Delete(ctx, rg, identityName, name, nil); err != nil && !isNotFound(err) {
		return azureError("delete federated credential "+name, err)
	}
	return nil
}

func (a *azure) deleteIdentity(ctx context.Context, rg, name string) error {
	if _, err := a.identities.Delete(ctx, rg, name, nil); err != nil && !isNotFound(err) {
		return azureError("delete managed identity "+name, err)
	}
	return nil
}

func tagged(tags map[string]*string, tenant string) bool {
	for _, k := range []string{TagOnboardedBy, LegacyTagOnboardedBy} {
		if v, ok := ownermarker.Tag(tags, k); ok && v != nil && *v == tenant {
			return true
		}
	}
	return false
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
