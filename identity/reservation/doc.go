// Package reservation owns the admission rules that reserve each namespace's
// provisioner ServiceAccount (ServiceAccountName, aztenant-provisioner) for the
// operator: no TokenRequest for it by anyone else, no pod or pod template
// running as it, no service-account-token Secret for it, and no change to its
// workload-identity annotations by anyone but the operator. The namespace's
// provisioning identity trusts only that account, so with these rules in
// place the operator, and with it the Tenant bounds and the policy library,
// is the only way to that identity (the trust model, described once in
// package [github.com/aztenant/aztenant/reconcilers]).
//
// The rules are ValidatingAdmissionPolicies (policies.yaml, copied into the
// Helm chart by `make generate`) bound with a ConfigMap parameter that lists
// the operator's user names. Install puts them on an API server, for the
// demo and the test environment; the chart renders the same objects.
package reservation
