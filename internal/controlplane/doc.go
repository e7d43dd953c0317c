// Package controlplane runs a real local Kubernetes control plane: etcd and
// kube-apiserver as child processes, built from Go modules by `make tools`.
//
// It owns the certificates (serving, client and service-account signing keys), the
// processes and their working directory, readiness, the admin kubeconfig and the
// service-account issuer (URL, discovery document and JWKS). Tests start one per
// package through internal/testenv; the demo starts a detached one that outlives
// the command. Child processes die with the parent unless detached, so a failed or
// interrupted test run leaves nothing behind.
//
// It also owns the one child-process manager of the repository (Process, in
// process.go: start, stop, kill, die with the parent or detach, the log's
// tail, CPU and memory from /proc), which the benchmark's stack and the demo
// use for the emulator and the operator too.
package controlplane
