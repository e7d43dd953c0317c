// Package operator wires the packages into a controller-runtime manager: the
// credential broker and Identity controller, tenancy (directory, Tenant
// controller, guard, fair queue, onboarding with the platform identity) and one generic reconciler per kind
// whose CRD is installed (controllers.KindServer: at start, then as CRDs are
// installed, without restart). The operator binary and the integration tests share this wiring, so tests run
// what ships.
//
// With --shards (sharded.go, package sharding) the same wiring runs in an
// inner manager that caches only the replica's shards and is rebuilt when
// they change, under an outer manager that serves metrics and probes and
// runs the shard coordinator and the labeller.
package operator
