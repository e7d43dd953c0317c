package kinds

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// UserAssignedIdentity adapts Microsoft.ManagedIdentity/userAssignedIdentities.
// Azure assigns its clientId, principalId and tenantId; they are copied into
// status and may be exported to a ConfigMap.
type UserAssignedIdentity struct{}

func (UserAssignedIdentity) New() azurev1alpha1.Resource {
	return &managedidentityv1alpha1.UserAssignedIdentity{}
}
func (UserAssignedIdentity) ResourceType() string {
	return "Microsoft.ManagedIdentity/userAssignedIdentities"
}
func (UserAssignedIdentity) APIVersion() string { return "2023-01-31" }
func (UserAssignedIdentity) OwnerKind() schema.GroupKind {
	return resourcesv1alpha1.ResourceGroupGroupKind
}
func (UserAssignedIdentity) Location(obj azurev1alpha1.Resource) string {
	return armLocation(obj.(*managedidentityv1alpha1.UserAssignedIdentity).Spec.Location)
}

// Desired is the location and tags: every property of the type is read-only.
func (UserAssignedIdentity) Desired(obj azurev1alpha1.Resource) (map[string]any, error) {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	return map[string]any{"location": armLocation(uai.Spec.Location), "tags": putTags(uai.Spec.Tags)}, nil
}

func (UserAssignedIdentity) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	p := propsOf(actual)
	uai.Status.ClientID = strOf(p, "clientId")
	uai.Status.PrincipalID = strOf(p, "principalId")
	uai.Status.TenantID = strOf(p, "tenantId")
}

func (UserAssignedIdentity) ConfigMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	if uai.Spec.OperatorSpec == nil || uai.Spec.OperatorSpec.ConfigMaps == nil {
		return nil
	}
	cm := uai.Spec.OperatorSpec.ConfigMaps
	return map[string]*azurev1alpha1.ConfigMapDestination{
		"clientId": cm.ClientID, "principalId": cm.PrincipalID, "tenantId": cm.TenantID,
	}
}

func (UserAssignedIdentity) ConfigMapValues(obj azurev1alpha1.Resource) map[string]string {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	return map[string]string{
		"clientId": uai.Status.ClientID, "principalId": uai.Status.PrincipalID, "tenantId": uai.Status.TenantID,
	}
}
