// Package asoconvert turns Azure Service Operator v2 manifests into aztenant's,
// for `aztenant convert`. It owns the mapping (group, version, kind, references,
// annotations, metadata) and the report of everything that has no equivalent: a
// field aztenant's kind lacks, a kind aztenant does not have, an annotation it
// does not act on. Nothing is dropped without a Finding saying so.
//
// The conversion decodes each object into aztenant's Go type of the same kind
// and encodes it back, so what it prints is exactly what aztenant reads; a field
// of the input missing from that result is a Finding.
package asoconvert
