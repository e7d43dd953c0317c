// Package api collects the project's API groups: one scheme builder for all of
// them and the CustomResourceDefinitions generated from their types (crds/),
// embedded so the operator, the CLI and tests install exactly what was built.
package api
