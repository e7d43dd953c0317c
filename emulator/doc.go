// Package emulator is a local Azure for tests and demos: an HTTPS server with its own CA
// that speaks the Entra ID (OpenID discovery, v2 token endpoint) and Azure Resource Manager
// wire protocols closely enough for the real Azure SDK for Go (azidentity, azcore's ARM
// pipeline, armresources, armmsi, armauthorization) to work against it unchanged.
//
// It is a product of its own, at the top of the repository (emulator/, with its
// subpackages emulator/entra, emulator/jwks, emulator/armpath and the answers of Azure's
// examples in emulator/answers), served as a process by cmd/azure-emulator and importable
// by other projects' tests as github.com/aztenant/aztenant/emulator. It imports nothing of
// the operator but two tables of Azure's facts the API holds (the built-in roles of
// api/authorization/roles, the locations of api/azure/v1alpha1); its CA comes from
// internal/pki. e2e's TestPlaces holds it to that.
//
// It owns: the emulated directory (tenants, subscriptions, app registrations and
// user-assigned managed identities with their federated identity credentials), the ARM
// resource tree with per-type behaviours and long-running operations, Azure RBAC
// enforcement, deterministic fault injection, the audit log and the Control API under
// /_emulator/. It does not own any client code: callers use the Azure SDK.
//
// Three parts stand on their own as subpackages, each depending on nothing here:
//   - entra: Entra's protocol (discovery documents, the client-credentials exchange and
//     its rules, access-token claims, AADSTS errors); it asks this package's directory
//     through entra.Directory.
//   - jwks: the keys (the emulator's signing key, trusted issuers' key sets).
//   - armpath: the grammar of ARM paths and scopes the router classifies requests by.
//
// The rest shares one lock (Emulator.mu) over the directory, the tree, the role grants
// and the operations, so it stays one package, grouped by file:
//   - the server: emulator.go (New, Start, routing), config.go, errors.go;
//   - Entra's HTTP side: entra.go (token endpoint, auditing), adfs.go (the AD FS
//     authority and /metadata/endpoints for the az CLI), issued.go;
//   - the ARM router: arm.go (requests, writes, reads, lists), auth.go (bearer
//     tokens), apiversions.go (registered types, api-version checks, providers), lro.go
//     (long-running operations), actions.go (POST actions), armidentity.go (a
//     resource's identity block), rbac.go (authorisation);
//   - per-type behaviours: types.go (typeBehaviour, the table), one type_*.go per
//     type, and zz_generated_types.go (kindgen's kinds, served generically). A behaviour
//     runs under the state lock and reaches into the directory and the grants (a managed
//     identity registers a principal, a role assignment a grant), which is why they are
//     files here and not a package behind an interface;
//   - state: directory.go, directory_lists.go, store.go (the tree), state.go (the
//     state file);
//   - testing aids: faults.go, audit.go, control.go (the Control API and its
//     in-process twins), answers*.go (Azure-like answer transforms per type and path;
//     Perturb, which derives them for any type from a body; answers of the generated
//     kinds built from Azure's documented examples, answers/*.json; and the switches
//     that answer every write of a generated kind from those or perturbed).
//
// Start one in-process with New and Start; cmd/azure-emulator runs the same thing as a
// process. README.md lists what is emulated and what is not.
package emulator
