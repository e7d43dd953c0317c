// Package v1alpha1 holds what every Azure-backed kind shares: the owner
// reference, export destinations for secrets and config maps, the common
// status, and the Resource interface the generic reconciler works through.
// It is not an API group of its own.
//
// +kubebuilder:object:generate=true
package v1alpha1
