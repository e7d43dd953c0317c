// Package exports writes what a resource exports (spec.operatorSpec) to the
// Secrets and ConfigMaps of its namespace: only objects the resource owns
// (another's is a ConflictError, a name that is not one an
// InvalidNameError), only when their data differ, and on each Secret the
// keys written and a digest of their values. It also owns when the secret
// outputs (keys, read from Azure with a POST such as listKeys) are read
// again: the annotations that ask for it, the refresh period, and Due, which
// checks the record of the last read (status.secretsRead) and the Secrets
// written then. What goes where (the kind's hooks, the CEL expressions of
// package expressions), the read itself and the outcome are the reconciler's
// (reconcilers/export.go).
package exports
