// Package kinds holds one small adapter per Azure resource type, each a
// reconcilers.Kind: its Facts (ARM type, api-version, owners ...), its PUT
// body built from the spec, the outputs copied back into status, and the
// Hooks it needs where Azure behaves specially. The zz_generated_*.go
// adapters are written by hack/kindgen (runtime in generated.go) and never
// edited: what Azure does for one of them that its model cannot say is an
// overlay, <kind>_overlay.go, amending its Facts and Hooks by GroupKind
// (overlay.go). The other adapters are written by hand. All lists them for the
// operator. How to add a kind: package reconcilers, "Adding a kind".
package kinds
