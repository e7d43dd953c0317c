// Package bench is the benchmark of `aztenant-lab bench` (`make bench`), beside
// the lab binary that runs it (cmd/aztenant-lab); it is a component of that
// binary, not a test. It runs the product as separate processes (etcd and
// kube-apiserver through internal/lab/controlplane, bin/azure-emulator and
// bin/operator, each a controlplane.Process that dies with this one) and
// measures it the way an operator of the operator would: wall time to Ready,
// ARM and Entra calls counted by the emulator and the operator's metrics,
// TokenRequests counted by the API server, and the operator's CPU seconds and
// RSS read from /proc (controlplane.ProcUsage).
//
// It owns the process stack (Stack: start, onboard namespaces, restart or
// kill -9 the operator, sharded replicas, restart the API server), the
// emulator's Control API client, the six stack scenarios (Scenarios) and the
// sharded one, and their report (table, JSON, and the Markdown page
// docs/benchmarks.md is rendered from). The fault-injection tests in
// e2e/faults reuse the stack.
package bench
