// Package policy owns aztenant's Gatekeeper constraint library and its
// offline evaluation. library/ is laid out like the gatekeeper-library: one
// directory per ConstraintTemplate (each with a CEL K8sNativeValidation
// source and Rego that say the same thing), sample constraints with allowed
// and disallowed examples, and a gator suite. Library exposes the embedded
// files; Evaluate runs them with the constraint framework, passing Namespace
// objects as Gatekeeper's webhook does (and AdmissionReviews as their
// request, with its user, operation and oldObject, as gator verify does),
// for `aztenant policy test` and the operator's in-process guard (one of the
// Guards of the trust model, described once in package
// [github.com/aztenant/aztenant/reconcilers]). Subpackage vap turns the same CEL rules into
// ValidatingAdmissionPolicies the API server enforces without Gatekeeper.
package policy
