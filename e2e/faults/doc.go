// Package faults injects failures into the product running as processes
// (etcd and kube-apiserver, bin/azure-emulator, bin/operator, through
// e2e/bench's Stack) and checks what a user would see: every resource
// converges, nothing is duplicated, orphaned or deleted without being asked,
// failures show as conditions and recover without a restart.
//
// It owns no code besides its tests: kill -9 of the operator at random points
// of create, update and delete; emulator 5xx and latency storms; an Entra
// outage; an API server restart; ServiceAccount tokens that Entra sees as
// expired. `make test` runs the short variants (about 3 minutes);
// FAULTS_FULL=1 runs the Entra outage for the 2 minutes.
package faults
