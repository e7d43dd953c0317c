// Package lifecycle tests deletion the way a cluster performs it: with
// kube-controller-manager's garbage collector and namespace controller
// running beside the operator and the Azure emulator.
//
// Deleting a parent (a ResourceGroup holding a StorageAccount with a blob
// container, and a UserAssignedIdentity with a FederatedIdentityCredential)
// finishes with background, foreground and orphan propagation: the topmost
// object deleted decides once what happens in Azure, with one DELETE for its
// own resource and none for what ARM deletes with it, and the children's
// objects and exported Secrets and ConfigMaps go with it (or, orphaned, stay
// with their resources). Deleting a tenant namespace deletes or detaches
// every Azure resource with the namespace's own identity, which the namespace
// keeps until the last of them is gone; a deletion Azure refuses says why in
// the object's conditions and the namespace's events, and the namespace waits.
// Offboarding a Tenant after its namespace was deleted removes exactly what
// onboarding created.
package lifecycle
