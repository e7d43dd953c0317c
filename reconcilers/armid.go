package reconcilers

import (
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Identifier is implemented by kinds whose ID is not the usual parent + type +
// name, such as blob containers under the implied blobServices/default.
type Identifier interface {
	ARMID(obj azurev1alpha1.Resource, parentID string) string
}

// armIDOf builds the ARM ID of obj under parentID: a resource group under a
// subscription, a top-level or extension resource under its scope, or a child
// resource under its parent resource.
func armIDOf(k Kind, obj azurev1alpha1.Resource, parentID string) string {
	if idr, ok := k.(Identifier); ok {
		return idr.ARMID(obj, parentID)
	}
	typ := k.ResourceType()
	if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		return parentID + "/resourceGroups/" + obj.AzureName()
	}
	segs := strings.Split(typ, "/")
	if len(segs) <= 2 {
		return parentID + "/providers/" + typ + "/" + obj.AzureName()
	}
	return parentID + "/" + segs[len(segs)-1] + "/" + obj.AzureName()
}
