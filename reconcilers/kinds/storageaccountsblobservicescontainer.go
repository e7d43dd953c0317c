package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// StorageAccountsBlobServicesContainer adapts
// Microsoft.Storage/storageAccounts/blobServices/containers. Its parent is a
// storage account; the account's default blob service is implied.
type StorageAccountsBlobServicesContainer struct{}

var _ reconcilers.Kind = StorageAccountsBlobServicesContainer{}

func (StorageAccountsBlobServicesContainer) New() azurev1alpha1.Resource {
	return &storagev1alpha1.StorageAccountsBlobServicesContainer{}
}
func (StorageAccountsBlobServicesContainer) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.Storage/storageAccounts/blobServices/containers",
		APIVersion:   "2023-05-01",
		OwnerKind:    storagev1alpha1.StorageAccountGroupKind,
	}
}

// Hooks: the ID is <account>/blobServices/default/containers/<name>.
func (StorageAccountsBlobServicesContainer) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{ARMID: func(obj azurev1alpha1.Resource, parentID string) string {
		return parentID + "/blobServices/default/containers/" + obj.AzureName()
	}}
}

func (StorageAccountsBlobServicesContainer) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	sp := obj.(*storagev1alpha1.StorageAccountsBlobServicesContainer).Spec
	props := map[string]any{}
	putStr(props, "publicAccess", sp.PublicAccess)
	if sp.Metadata != nil {
		props["metadata"] = putTags(sp.Metadata)
	}
	return map[string]any{"properties": props}, nil
}

func (StorageAccountsBlobServicesContainer) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	c := obj.(*storagev1alpha1.StorageAccountsBlobServicesContainer)
	p := propsOf(actual)
	c.Status.HasImmutabilityPolicy, c.Status.HasLegalHold = nil, nil
	if v, ok := p["hasImmutabilityPolicy"].(bool); ok {
		c.Status.HasImmutabilityPolicy = &v
	}
	if v, ok := p["hasLegalHold"].(bool); ok {
		c.Status.HasLegalHold = &v
	}
}
