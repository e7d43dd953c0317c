package onboarding

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/ownermarker"
	"github.com/aztenant/aztenant/tenancy"
)

// TagRequestedBy names, on a resource group onboarding created for a
// developer's ResourceGroup object, that object ("<namespace>/<name>"), for
// people reading the group in Azure.
const TagRequestedBy = "aztenant.io-requested-by"

// ReasonRequestRefused is a requested resource group onboarding will not
// create or grant roles on.
const ReasonRequestRefused = "ResourceGroupRequestRefused"

// A developer may create a resource group the Tenant allows without a role on
// the subscription: the namespace's identity holds roles on the groups
// onboarding lists, nothing wider, so its own PUT of a new group is refused
// (403). Onboarding, which acts with the platform identity, does it for it:
// for each ResourceGroup object of an onboarded namespace that names a group
// the Tenant's resourceGroups allow, in one of its locations, served by the
// namespace's default Identity, it creates the group when missing (tagged
// with the object's owner marker, ownermarker.TagCreatedFor and
// TagRequestedBy) and grants the namespace's managed identity onboarding's
// roles on it. The object's reconciler then finds the group marked for it and
// manages it as its own (no adopt); deleting the object deletes the group with
// the namespace's identity, and the role assignments go with it (they are
// recorded, so offboarding removes them too).
//
// Onboarding never grants roles on a group that exists and was not created
// for that object (it could hold another team's resources), on a group
// holding any Tenant's managed identities, or while another Tenant's patterns
// can match the same names (ResourceGroupsExclusive is False): each is
// refused with a reason in the step.
func (s *pass) requestedGroups(ctx context.Context, a *azure, ns string, mi *managedIdentity, ok func(kind, id string, created bool)) error {
	if !s.r.RequestedGroups {
		return nil
	}
	ob, t := s.t.Spec.Onboarding, s.t
	var list resourcesv1alpha1.ResourceGroupList
	if err := s.r.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return fmt.Errorf("list ResourceGroups of namespace %s: %w", ns, err)
	}
	identityGroups, err := s.identityGroups(ctx)
	if err != nil {
		return err
	}
	sub := subscriptionOf(t)
	var ids, refused []string
	refuse := func(obj *resourcesv1alpha1.ResourceGroup, name, why string) {
		refused = append(refused, name+": "+why)
		// Said where the developer looks: the object's events.
		if s.r.Recorder != nil {
			s.r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonRequestRefused, "Onboarding",
				"the Tenant's onboarding does not create resource group %s for this object: %s", name, why)
		}
	}
	for i := range list.Items {
		obj := &list.Items[i]
		name := obj.Spec.AzureName
		if name == "" {
			name = obj.Name
		}
		if !s.requestable(obj, name) {
			continue
		}
		rgID := ResourceGroupID(sub, name)
		if owner, taken := identityGroups[strings.ToLower(rgID)]; taken {
			refuse(obj, name, fmt.Sprintf("it holds the managed identities of Tenant %q, where no namespace may get a role", owner))
			continue
		}
		if c := meta.FindStatusCondition(t.Status.Conditions, tenancy.ConditionResourceGroupsExclusive); c != nil && c.Status != "True" {
			refuse(obj, name, fmt.Sprintf("another Tenant's resourceGroups can match the same names (%s), so a group created here could be theirs", c.Message))
			continue
		}
		if !obj.DeletionTimestamp.IsZero() {
			// Being deleted: create nothing, but keep the roles, which the
			// object's own deletion of the group needs.
			for _, role := range roles(ob) {
				guid, _ := CheckRole(role)
				rd := RoleDefinitionID(sub, guid)
				ok(KindRoleAssignment, rgID+"/providers/Microsoft.Authorization/roleAssignments/"+RoleAssignmentName(rgID, mi.principalID, rd), false)
			}
			continue
		}
		mark := ownermarker.Owner(s.r.ClusterID, ns, resourcesv1alpha1.ResourceGroupGroupKind, obj.Name)
		id, created, err := a.ensureRequestedGroup(s.begin(ctx, ns, tenancyv1alpha1.StepRequestedResourceGroups), name, azurev1alpha1.NormalizeLocation(string(obj.Spec.Location)), mark, ns+"/"+obj.Name)
		if err != nil {
			refuse(obj, name, err.Error())
			continue
		}
		if created {
			s.event(corev1.EventTypeNormal, "Created", "namespace %s: created resource group %s for ResourceGroup %s/%s", ns, id, ns, obj.Name)
		}
		raIDs, err := assignRoles(s.begin(ctx, ns, tenancyv1alpha1.StepRequestedResourceGroups), a, sub, []string{id}, roles(ob), CheckRole, mi.principalID, ok)
		if err != nil {
			refuse(obj, name, err.Error())
			continue
		}
		ids = append(append(ids, id), raIDs...)
	}
	if len(refused) > 0 {
		// A developer's request refused does not fail the Tenant's
		// onboarding (nor retry it every 30 s): the step is done, and says
		// what it would not do.
		s.step(ns, tenancyv1alpha1.StepRequestedResourceGroups, tenancyv1alpha1.StepReady,
			&StepError{Reason: ReasonRequestRefused, Message: "requested resource groups refused: " + strings.Join(refused, "; ")}, ids...)
		return nil
	}
	if len(ids) > 0 {
		s.step(ns, tenancyv1alpha1.StepRequestedResourceGroups, tenancyv1alpha1.StepReady, nil, ids...)
	}
	return nil
}

// requestable reports whether obj asks onboarding for the group name: one
// the Tenant allows and does not list in onboarding (those exist and carry
// roles already), in a location it allows, for the Identity onboarding made.
// Anything else is left to the object's reconciler, whose guard says why.
func (s *pass) requestable(obj *resourcesv1alpha1.ResourceGroup, name string) bool {
	t := s.t
	if slices.ContainsFunc(t.Spec.Onboarding.ResourceGroups, func(g string) bool { return strings.EqualFold(g, name) }) {
		return false
	}
	if !tenancy.ResourceGroupAllowed(t, name) || !tenancy.LocationAllowed(t, string(obj.Spec.Location)) {
		return false
	}
	idName, err := identity.IdentityNameFor(obj)
	return err == nil && idName == identity.DefaultIdentityName
}

// ensureRequestedGroup creates the group name for the object whose owner
// marker is mark, unless it exists. An existing group is the object's only
// when it carries that marker as TagCreatedFor (onboarding created it for
// the object before) or TagOwner (the object manages it already).
func (a *azure) ensureRequestedGroup(ctx context.Context, name, location, mark, requestedBy string) (id string, created bool, err error) {
	got, err := a.groups.Get(ctx, name, nil)
	switch {
	case err == nil:
		for _, k := range []string{ownermarker.TagCreatedFor, ownermarker.TagOwner} {
			if v, _ := ownermarker.Tag(got.Tags, k); v != nil && *v == mark {
				return *got.ID, false, nil
			}
		}
		return "", false, &StepError{Reason: ReasonRequestRefused, Message: fmt.Sprintf(
			"resource group %s exists and was not created for this object: onboarding grants roles only on groups it creates for the object asking (ask the platform team to list it in spec.onboarding.resourceGroups)", *got.ID)}
	case !isNotFound(err):
		return "", false, azureError("read resource group "+name, err)
	}
	put, err := a.groups.CreateOrUpdate(ctx, name, armresources.ResourceGroup{
		Location: to.Ptr(location),
		Tags: map[string]*string{
			ownermarker.TagOwner: to.Ptr(mark), ownermarker.TagCreatedFor: to.Ptr(mark), TagRequestedBy: to.Ptr(requestedBy),
		},
	}, nil)
	if err != nil {
		return "", false, azureError("create resource group "+name, err)
	}
	return *put.ID, true, nil
}
