// Package bench runs the product as separate processes (etcd and
// kube-apiserver through internal/controlplane, bin/azure-emulator and
// bin/operator) and measures it the way an operator of the operator would:
// wall time to Ready, ARM and Entra calls counted by the emulator and the
// operator's metrics, TokenRequests counted by the API server, and the
// operator's CPU seconds and RSS read from /proc.
//
// It owns the process stack (Stack: start, onboard namespaces, restart or
// kill -9 the operator, restart the API server), the emulator's Control API
// client, the five scenarios of `aztenant-lab bench` and their report (table and
// JSON). The fault-injection tests in e2e/faults reuse the stack.
package bench
