// Package e2e holds end-to-end tests that drive the product the way a user
// does: the binaries as processes (control plane, Azure emulator, operator),
// kubectl and the example manifests. Its sub-packages are the Azure emulator
// (emulator), its conformance tests against real ServiceAccount tokens
// (federation), the attack suite (attacks), fault injection with real
// processes (faults), the real Gatekeeper and generated admission policies on
// the API server (gatekeeper), apps' workload identity through the real
// azure-workload-identity webhook (workloadidentity), deletion of parents
// and of tenant namespaces with kube-controller-manager's garbage collector
// and namespace controller (lifecycle), the operator's traces as an OTLP
// receiver gets them (tracing), and the benchmark runner behind `make bench`
// (bench).
package e2e
