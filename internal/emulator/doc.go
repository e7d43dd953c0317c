// Package emulator is a local Azure for tests and demos: an HTTPS server with its own CA
// that speaks the Entra ID (OpenID discovery, v2 token endpoint) and Azure Resource Manager
// wire protocols closely enough for the real Azure SDK for Go (azidentity, azcore's ARM
// pipeline, armresources, armmsi, armauthorization) to work against it unchanged.
//
// It owns: the emulated directory (tenants, subscriptions, app registrations and
// user-assigned managed identities with their federated identity credentials), trust in
// external OIDC issuers (a Kubernetes API server's service-account issuer), token issuance
// and validation, the ARM resource tree with per-type behaviours and long-running operations,
// Azure RBAC enforcement, deterministic fault injection, the audit log and the Control API
// under /_emulator/. It does not own any client code: callers use the Azure SDK.
//
// Start one in-process with New and Start; cmd/azure-emulator runs the same thing as a
// process. README.md lists what is emulated and what is not.
package emulator
