// Package kinds holds one small adapter per Azure resource type: its ARM type
// and api-version, its PUT body built from the spec, and the outputs copied
// back into status. All lists them for the operator.
package kinds
