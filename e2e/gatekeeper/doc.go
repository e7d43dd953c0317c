// Package gatekeeper tests the policy library at admission on a real
// kube-apiserver: enforced by the real Gatekeeper (bin/gatekeeper, run out
// of cluster as the API server's validating webhook), and enforced by the
// ValidatingAdmissionPolicies policy/vap makes from it, with no Gatekeeper.
// Objects are applied with the real kubectl, as a tenant would.
package gatekeeper
