// Package config reads the kind generator's single input, api/kinds.yaml: which SDK
// modules are pinned, and per kind the module, the SDK operation group (client), the
// kind's name and group as ASO spells them, and the few overrides a kind needs (fixed URL
// parameters, renamed, skipped, cut, secret or reference fields). Every override says why.
//
// Versions are not here: they are pinned by hack/kindgen/go.mod, so the Go toolchain
// verifies the modules (go.sum) and `go list -m` answers what is used.
package config
