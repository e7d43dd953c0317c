// Package v1alpha1 holds the plan.aztenant.io API: a Plan asks the operator what
// applying some objects would do in Azure, read with the namespace's own identity,
// without writing anything (aztenant plan creates one, reads the answer, deletes it).
//
// +kubebuilder:object:generate=true
// +groupName=plan.aztenant.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of this package.
var GroupVersion = schema.GroupVersion{Group: "plan.aztenant.io", Version: "v1alpha1"}

var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Plan{}, &PlanList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
})

// AddToScheme adds this group's types to a scheme.
var AddToScheme = schemeBuilder.AddToScheme
