package armtarget

import "k8s.io/apimachinery/pkg/runtime/schema"

// Target is what a reconciler is about to touch in Azure.
type Target struct {
	// ARMID is the resource's full ID; it decides where the request goes, so
	// it must agree with SubscriptionID and ResourceGroup.
	ARMID string
	// SubscriptionID and ResourceGroup are where the reconciler believes the
	// resource lives (from the Identity's scope and the owner). Empty means
	// "whatever the ARM ID says".
	SubscriptionID, ResourceGroup string
	// Location is the ARM location the resource is created in; empty for
	// resources without one (role assignments, child resources).
	Location string
	// GroupKind of the Kubernetes object; empty means the object's own GVK.
	GroupKind schema.GroupKind
}
