package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// ResourceGroup adapts Microsoft.Resources/resourceGroups. Its parent is the
// subscription (no OwnerKind).
type ResourceGroup struct{}

var _ reconcilers.Kind = ResourceGroup{}

func (ResourceGroup) New() azurev1alpha1.Resource { return &resourcesv1alpha1.ResourceGroup{} }
func (ResourceGroup) Facts() reconcilers.Facts {
	return reconcilers.Facts{ResourceType: "Microsoft.Resources/resourceGroups", APIVersion: "2021-04-01"}
}
func (ResourceGroup) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{Location: func(obj azurev1alpha1.Resource) string {
		return armLocation(obj.(*resourcesv1alpha1.ResourceGroup).Spec.Location)
	}}
}

func (ResourceGroup) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	rg := obj.(*resourcesv1alpha1.ResourceGroup)
	body := map[string]any{"location": armLocation(rg.Spec.Location)}
	// Tags are always sent, so tags removed in the portal count as drift.
	tags := map[string]any{}
	for k, v := range rg.Spec.Tags {
		tags[k] = v
	}
	body["tags"] = tags
	return body, nil
}

func (ResourceGroup) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	rg := obj.(*resourcesv1alpha1.ResourceGroup)
	rg.Status.Location, _ = actual["location"].(string)
}
