package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// UserAssignedIdentity adapts Microsoft.ManagedIdentity/userAssignedIdentities.
// Azure assigns its clientId, principalId and tenantId; they are copied into
// status and may be exported to a ConfigMap.
type UserAssignedIdentity struct{}

var _ reconcilers.Kind = UserAssignedIdentity{}

func (UserAssignedIdentity) New() azurev1alpha1.Resource {
	return &managedidentityv1alpha1.UserAssignedIdentity{}
}
func (UserAssignedIdentity) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.ManagedIdentity/userAssignedIdentities",
		APIVersion:   "2023-01-31",
		OwnerKind:    resourcesv1alpha1.ResourceGroupGroupKind,
	}
}
func (k UserAssignedIdentity) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{
		Location: func(obj azurev1alpha1.Resource) string {
			return armLocation(obj.(*managedidentityv1alpha1.UserAssignedIdentity).Spec.Location)
		},
		ConfigMapDestinations: k.configMapDestinations,
		ConfigMapValues:       k.configMapValues,
	}
}

// Desired is the location and tags: every property of the type is read-only.
func (UserAssignedIdentity) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
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

func (UserAssignedIdentity) configMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	if uai.Spec.OperatorSpec == nil || uai.Spec.OperatorSpec.ConfigMaps == nil {
		return nil
	}
	cm := uai.Spec.OperatorSpec.ConfigMaps
	return map[string]*azurev1alpha1.ConfigMapDestination{
		"clientId": cm.ClientID, "principalId": cm.PrincipalID, "tenantId": cm.TenantID,
	}
}

func (UserAssignedIdentity) configMapValues(obj azurev1alpha1.Resource) map[string]string {
	uai := obj.(*managedidentityv1alpha1.UserAssignedIdentity)
	return map[string]string{
		"clientId": uai.Status.ClientID, "principalId": uai.Status.PrincipalID, "tenantId": uai.Status.TenantID,
	}
}
