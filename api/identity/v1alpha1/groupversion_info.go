// Package v1alpha1 holds the identity.aztenant.io API: the Identity kind that binds
// a namespace's ServiceAccount to an Azure identity federated with it.
//
// +kubebuilder:object:generate=true
// +groupName=identity.aztenant.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the API group and version of this package.
var GroupVersion = schema.GroupVersion{Group: "identity.aztenant.io", Version: "v1alpha1"}

var (
	// SchemeBuilder registers this group's types.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds this group's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
