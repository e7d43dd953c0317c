// Package pki owns the certificate authorities of the local stack: the
// Azure emulator's (its state file keeps it, so clients keep trusting it
// across restarts), the control plane's (serving and client certificates of
// kube-apiserver) and the test webhooks' (Gatekeeper, azure-workload-identity).
// Keys are ECDSA P-256: quick to make, so start-up stays fast on a busy
// machine. It is for development and tests, never for a production cluster.
package pki
