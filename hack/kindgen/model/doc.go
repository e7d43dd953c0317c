// Package model holds what the kind generator knows about one Azure kind, read from a pinned
// Azure SDK for Go armXXX module: where the resource lives in ARM (type, parents, scope,
// api-version), how each operation behaves (verb, long-running shape, request and response
// bodies) and the full graph of its body types (JSON names, read-only and required markers,
// enums, docs, references, secrets, cycles).
//
// The types are plain data with no behaviour beyond small lookups, so emitters (API types,
// CRDs, registration, emulator facts) can be written on top of a model without parsing the
// SDK again, and reviewers can read a model as JSON (`kindgen model -kind X`). Field order
// in the JSON is fixed and maps are keyed, so a dump is stable across runs.
package model
