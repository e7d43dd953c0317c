// Package armpath owns the grammar of ARM request paths as the emulator's router reads
// them: subscriptions, resource groups, provider resources and their child types, in any
// casing, with what follows the last complete resource (a collection, an action, a
// provider registration) as the tail; and the scope rules role assignments and
// definitions use (a scope normalised, an ID within a scope). It holds no state.
//
// It is part of the Azure emulator (emulator/, served by cmd/azure-emulator).
package armpath
