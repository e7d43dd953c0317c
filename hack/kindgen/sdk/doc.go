// Package sdk is the kind generator's reader: it loads pinned Azure SDK for Go armXXX
// packages with go/packages (types and syntax) and turns one configured kind (a module's
// client, such as armnetwork.VirtualNetworksClient) into a model.Kind.
//
// Everything is read from what the SDK's own generator wrote, never guessed from names
// alone where the code says it: URL templates, HTTP methods and api-versions from each
// operation's …CreateRequest function; long-running shape from Begin… methods and their
// poller options; bodies from the methods' signatures and response structs; JSON names from
// models_serde.go; READ-ONLY and REQUIRED from the field comments; enums from
// PossibleXxxValues; unions from polymorphic_helpers.go. Where a fact is a judgement
// (a field holds an ARM ID, a value is a secret), the model says why (model.Flag.Reason),
// and the config can overrule it.
//
// Nothing is cached on disk beyond the Go build cache: the modules are verified by go.sum
// each time they load.
package sdk
