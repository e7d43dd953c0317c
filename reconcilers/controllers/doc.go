// Package controllers wires the generic reconciler (package reconcilers)
// into controller-runtime: for each kind whose CRD is installed, one
// controller with its watches (the kind's objects, Identities, namespaces,
// owners, the Secrets and ConfigMaps its objects read, Tenants), its field
// indexes and its work queue (Build); and the KindServer, which starts those
// controllers at start and as CRDs are installed later (kindserver.go).
//
// It decides when an object is reconciled, never how: that is the engine's,
// reached through Reconciler.Reconcile and the few hooks the engine exports
// for its wiring (OwnerIndex and OwnerName, Reconciler.WakeWith, IsReady,
// Registry.NewList and MarkServed). The operator's RBAC for Azure-backed
// kinds is in its markers (controller.go, kindserver.go), which make
// generate reads with the rest of ./reconcilers/....
package controllers
