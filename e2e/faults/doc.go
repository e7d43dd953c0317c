// Package faults injects failures into the product running as processes
// (etcd and kube-apiserver, bin/azure-emulator, bin/operator, through
// internal/lab/bench's Stack) and checks what a user would see: every resource
// converges, nothing is duplicated, orphaned or deleted without being asked,
// failures show as conditions and recover without a restart.
//
// It owns no code besides its tests: kill -9 of the operator at random points
// of create, update and delete; ARM 5xx and latency storms; an Entra outage;
// an API server restart; ServiceAccount tokens that expire. `make test` runs
// the short variants (about 2 minutes once compiled). Environment:
//
//	FAULTS_FULL=1        the Entra outage lasts the 2 minutes, and a
//	                     real 10-minute ServiceAccount token is waited out
//	FAULTS_SEED=<n>      replays the kill points of a logged seed
package faults
