// Package comparison decides what counts as a difference between the body a
// spec asks for (desired, a PUT body) and Azure's answer (actual, a GET's or
// a listing's body): Drift is the first path where they differ, Differences
// every one, in one path syntax (keys joined by dots, a named list's element
// as [name=n], another list's as [i], (body) for the whole body).
//
// What is no difference: anything Azure adds beside what desired says
// (defaults, read-only outputs), names and enum values in another casing, a
// location's display name, numbers of another Go type, named lists in
// another order, empty objects and lists Azure leaves out; and, by a kind's
// Rules, its write-only paths (never compared), the elements of its open sets
// the spec does not name, Azure's answers it knows (the normalisation table
// in normalize.go, each entry citing its source; values Azure does not
// return; elements Azure adds to a list) and its own equivalent strings.
//
// It also holds what reads and bounds those paths (ValueAt, Covers,
// Collapse), the projection of Azure's answer onto what desired names
// (Project) and a body's canonical JSON, which the record of Azure's answers
// digests.
//
// It decides nothing else. The kind contract (Facts, Hooks) is package
// reconcilers', which builds Rules from it; whether a difference is written,
// shown or kept because Azure answered the write that way (status.azureKeeps:
// digests, entries, what is secret), and the Forced values refused before a
// write, are the reconciler's (plan.go, keeps.go, answers.go,
// answerrules.go). It reads nothing and calls nothing: every function is
// pure.
package comparison
