// Package vap turns the policy library into ValidatingAdmissionPolicy and
// ValidatingAdmissionPolicyBinding objects (admissionregistration.k8s.io/v1),
// so the API server enforces the templates' CEL (K8sNativeValidation) rules
// with no Gatekeeper running.
//
// It owns one conversion: a ConstraintTemplate's CEL source plus one of its
// constraints becomes one self-contained policy and its binding. The
// constraint's parameters are inlined as the variable params (the name
// Gatekeeper binds them to) and its match becomes match rules, conditions
// and selectors, so the output needs neither Gatekeeper's CRDs nor a
// parameter object kept in sync; a changed constraint is regenerated. A
// kind admitted only through a subresource (TokenRequest, the
// serviceaccounts/token subresource) gets a rule for that subresource when
// a kinds entry names it, since resources "*" match no subresource.
// Gatekeeper's own generator (pkg/drivers/k8scel/transform) binds policies
// to constraint objects instead, which exist only where Gatekeeper has
// created the constraint CRDs.
//
// Every expression is compiled offline with the API server's CEL library;
// a template or constraint that cannot be expressed is returned as an
// *UnsupportedError naming it and saying why, never dropped.
package vap
