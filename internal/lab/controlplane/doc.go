// Package controlplane runs a real local Kubernetes control plane: etcd and
// kube-apiserver (and, when asked, kube-controller-manager) as child
// processes, built from Go modules by `make tools`.
//
// It lives in internal/lab, beside the lab binary (cmd/aztenant-lab), because
// the lab is its one user outside tests: the demo starts a detached control
// plane that outlives the command, and the benchmark (internal/lab/bench) one
// that dies with it. The test harness (internal/testing/testenv, one per test
// package) starts it too. Nothing shipped imports it: neither cmd/operator nor
// cmd/aztenant nor cmd/azure-emulator has it among its dependencies.
//
// It owns the processes and their working directory, readiness, the admin and
// operator kubeconfigs and the service-account issuer (URL, discovery document
// and JWKS). Its certificates and keys come from internal/pki
// (WriteControlPlane). Child processes die with the parent unless detached, so
// a failed or interrupted test run leaves nothing behind.
//
// It also owns the one child-process manager of the repository (Process, in
// process.go: start, stop, kill, die with the parent or detach, the log's tail
// and grep, CPU and memory from /proc), through which the benchmark's stack and
// the demo run the emulator and the operator too.
package controlplane
