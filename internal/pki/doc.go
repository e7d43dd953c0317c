// Package pki is the one certificate helper of the repository: it owns the
// certificate authorities of the local stack and what they issue. The Azure
// emulator's CA (NewCA, ParseCA: its state file keeps it, so clients keep
// trusting it across restarts) and its serving certificate; the control
// plane's key set (WriteControlPlane: kube-apiserver's serving pair, the
// admin's and the operator's client certificates, the ServiceAccount signing
// key pair); and the test webhooks' serving pairs (WriteServing: Gatekeeper,
// azure-workload-identity). Keys are ECDSA P-256 (RSA for ServiceAccount
// tokens, as managed clusters sign them): quick to make, so start-up stays
// fast on a busy machine. It is for development and tests, never for a
// production cluster.
package pki
