package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// A blob container's parent in ARM is its account's blob service, of which an account has
// one, named default: Azure's Blob Containers - Create takes
// .../Microsoft.Storage/storageAccounts/{accountName}/blobServices/default/containers/{containerName}
// (learn.microsoft.com/rest/api/storagerp/blob-containers/create). The kind is owned by
// the storage account, the blob service implied, so its ID is not the usual owner + type
// + name.
var _ = overlay(storagev1alpha1.StorageAccountsBlobServicesContainerGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.ARMID = blobContainerID },
})

// blobContainerID is the container's ARM ID under its storage account's (parentID).
func blobContainerID(obj azurev1alpha1.Resource, parentID string) string {
	return parentID + "/blobServices/default/containers/" + obj.AzureName()
}
