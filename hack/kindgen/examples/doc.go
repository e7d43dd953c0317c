// Package examples reads Azure's documented examples of each kind's PUT from the pinned
// SDK modules and says, as data, how Azure's documentation answers a write (issue 27,
// docs/design/azure-answers.md §3).
//
// Every armXXX module carries *_client_example_test.go files that Azure's SDK generator
// wrote from the azure-rest-api-specs `examples/` folder at the module's api-version: per
// example, a `// Generated from example definition: <URL of the example JSON>` line, the
// request as a Go composite literal passed to the client method, and the response as a
// comment block (`// res.Vault = armkeyvault.Vault{...}`). This package parses them with
// go/parser and evaluates both literals to JSON through the SDK's own wire names
// (models_serde.go): enum constants to their values, to.Ptr unwrapped, times as the
// example wrote them, union variants with their discriminator.
//
// Per kind it keeps the smallest PUT example (request and answer), the keys the other
// examples' answers add to it, and, over every example, what the answer adds to the
// request (defaults), drops from it (write-only candidates) and rewrites, each with the
// URL of the example it comes from. Examples are documentation, not captures: they
// contradict real Azure and each other (design §0 finding 3), so the rewrites are data
// for review, never something to apply.
package examples
