package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// PlanSpec is the objects to plan, as they would be applied in this namespace.
type PlanSpec struct {
	// Objects are aztenant resources (any kind the operator serves), in the order
	// they would be applied: an owner before what it owns. Their namespace is the
	// Plan's.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=200
	Objects []runtime.RawExtension `json:"objects"`
}

// Action is what applying an object would do in Azure.
type Action string

// Actions of a planned object.
const (
	// ActionCreate: the resource does not exist in Azure; it would be created.
	ActionCreate Action = "Create"
	// ActionUpdate: Azure differs from the spec at Differences; they would be written.
	ActionUpdate Action = "Update"
	// ActionNoChange: Azure matches the spec (or the policy writes nothing).
	ActionNoChange Action = "NoChange"
	// ActionNeedsAdoption: the resource exists in Azure and is not the object's;
	// it would be refused (AlreadyExists) without aztenant.io/adopt: "true".
	ActionNeedsAdoption Action = "NeedsAdoption"
	// ActionDenied: a guard (the Tenant's bounds, the policy library, a reference
	// outside the namespace) would refuse it.
	ActionDenied Action = "Denied"
	// ActionUnknown: it could not be planned (Reason and Message say why: an owner
	// that is neither in the cluster nor in the plan, Azure unavailable, a Secret missing).
	ActionUnknown Action = "Unknown"
)

// PlannedObject is the plan of one object.
type PlannedObject struct {
	// Kind and Name of the object (group/Kind when not unique).
	Kind string `json:"kind"`
	Name string `json:"name"`
	// ID is the ARM ID the object names, when known.
	// +optional
	ID string `json:"id,omitempty"`
	// Action is what applying it would do.
	Action Action `json:"action"`
	// Reason is the Ready reason the object would get (TenantPolicyDenied,
	// AlreadyExists, WaitingForOwner ...), for Denied and Unknown.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message explains the action.
	// +optional
	Message string `json:"message,omitempty"`
	// Differences, for Update, are the paths that would be written.
	// +optional
	// +listType=atomic
	Differences []azurev1alpha1.Difference `json:"differences,omitempty"`
	// KeptByAzure are the paths where Azure differs from the spec as it
	// answered the last write (the object's status.azureKeeps): not written
	// again while the spec stays the same there, so not Differences.
	// +optional
	// +listType=atomic
	KeptByAzure []azurev1alpha1.Difference `json:"keptByAzure,omitempty"`
}

// PlanStatus is the operator's answer.
type PlanStatus struct {
	// ObservedGeneration is the spec generation Objects answer.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Objects are the plans of spec.objects, in their order.
	// +optional
	// +listType=atomic
	Objects []PlannedObject `json:"objects,omitempty"`
	// Conditions: Ready is True once Objects answer the current spec.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Plan asks the operator what applying Objects would do in Azure, as the
// namespace's identity sees it, writing nothing in Azure and nothing besides its
// own status in the cluster. The operator deletes a Plan an hour after answering.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Plan struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PlanSpec   `json:"spec"`
	Status PlanStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PlanList is a list of Plan.
type PlanList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Plan `json:"items"`
}
