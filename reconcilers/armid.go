package reconcilers

import (
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// armIDOf builds the ARM ID of obj under parentID: a resource group under a
// subscription, a top-level or extension resource under its scope, or a child
// resource under its parent resource; or what the kind's Hooks.ARMID says.
func armIDOf(k Kind, obj azurev1alpha1.Resource, parentID string) string {
	if armID := k.Hooks().ARMID; armID != nil {
		return armID(obj, parentID)
	}
	typ := k.Facts().ResourceType
	if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		return parentID + "/resourceGroups/" + obj.AzureName()
	}
	segs := strings.Split(typ, "/")
	if len(segs) <= 2 {
		return parentID + "/providers/" + typ + "/" + obj.AzureName()
	}
	return parentID + "/" + segs[len(segs)-1] + "/" + obj.AzureName()
}
