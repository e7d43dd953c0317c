// Package ownermarker owns the tags aztenant writes on Azure resources to say
// which Kubernetes object a resource belongs to: the owner marker (TagOwner,
// a digest naming the cluster and the object) and TagCreatedFor, which
// onboarding sets on a resource group it created for a developer's object.
// It is a leaf at the bottom of the layering so that the reconcilers and
// onboarding (package tenancy/onboarding, below the reconcilers), which both
// write these tags, agree on them without importing each other.
package ownermarker
