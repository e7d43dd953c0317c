// Package policy owns aztenant's Gatekeeper constraint library: the
// ConstraintTemplates (each with a CEL K8sNativeValidation source and Rego),
// sample constraints and gator suites under library/, laid out like the
// gatekeeper-library. Its tests run every suite through gator verify with
// both engines and evaluate the templates with the constraint framework,
// passing Namespace objects for the namespace-driven rules.
package policy
