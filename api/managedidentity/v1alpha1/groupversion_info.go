// Package v1alpha1 holds the managedidentity.aztenant.io API: user-assigned managed
// identities (Microsoft.ManagedIdentity/userAssignedIdentities) and their
// federated identity credentials.
//
// +kubebuilder:object:generate=true
// +groupName=managedidentity.aztenant.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of this package.
var GroupVersion = schema.GroupVersion{Group: "managedidentity.aztenant.io", Version: "v1alpha1"}

var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&UserAssignedIdentity{}, &UserAssignedIdentityList{},
	)
	addGeneratedKinds(s) // zz_generated_kinds.go: the kinds kindgen writes into this group
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
})

// AddToScheme adds this group's types to a scheme.
var AddToScheme = schemeBuilder.AddToScheme
