// Package e2e holds end-to-end tests that drive the product the way a user
// does: the binaries as processes (control plane, Azure emulator, operator),
// kubectl, the az CLI and the example manifests (examples_test.go). Its
// sub-packages are the emulator's conformance tests against real
// ServiceAccount tokens (federation), the attack suite (attacks), fault
// injection with real processes (faults), the real Gatekeeper and generated
// admission policies on the API server (gatekeeper), apps' workload identity
// through the real azure-workload-identity webhook (workloadidentity),
// deletion of parents and of tenant namespaces with kube-controller-manager's
// garbage collector and namespace controller (lifecycle), the operator's
// traces as an OTLP receiver gets them (tracing), the real az CLI against the
// emulator (azcli). What they share lives elsewhere: the test harness in
// internal/testing (testenv, stacktest), the process stack of the benchmark
// behind `make bench`, which faults reuses, in internal/lab/bench beside the
// lab binary. The Azure emulator itself is a product of its own: emulator/,
// served by cmd/azure-emulator.
package e2e
