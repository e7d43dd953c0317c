// Package v1alpha1 holds the authorization.aztenant.io API: Azure RBAC role
// assignments (Microsoft.Authorization/roleAssignments) at any scope.
//
// +kubebuilder:object:generate=true
// +groupName=authorization.aztenant.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of this package.
var GroupVersion = schema.GroupVersion{Group: "authorization.aztenant.io", Version: "v1alpha1"}

var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
	addGeneratedKinds(s) // zz_generated_kinds.go: the group's kinds, all written by kindgen
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
})

// AddToScheme adds this group's types to a scheme.
var AddToScheme = schemeBuilder.AddToScheme
