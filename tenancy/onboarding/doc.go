// Package onboarding gives the namespaces of a Tenant with spec.onboarding
// their own Azure identity, acting with the platform identity (an Identity in
// the operator's namespace, operator flag --platform-identity), and takes it
// away again.
//
// It owns:
//
//   - The names onboarding uses, shared with `aztenant onboard --print` so the
//     manual path and the operator's create the same things: IdentityName,
//     FederatedCredentialName, Subject, RoleAssignmentName (a UUIDv5 of scope,
//     principal and role, so a repeated reconcile never creates a second
//     assignment) and CheckRole (roles that can grant access are refused).
//   - The Reconciler: per namespace the steps ResourceGroups (shared),
//     ManagedIdentity, FederatedCredential, RoleAssignments, ServiceAccount and
//     Identity, each a GET and a write only when something differs, reported
//     in status.onboarding and the Tenant's Onboarded condition.
//   - The record of what onboarding created (status.onboarding.created, plus
//     an aztenant.io-onboarded-by tag on created resource groups and
//     identities and a label on created ServiceAccounts and Identities, so a
//     crash between a create and the status write is recognised later).
//     Offboarding (the Tenant deleted, spec.onboarding removed, a namespace
//     leaving the Tenant) deletes what is recorded and nothing else: the
//     Identity and ServiceAccount first (their protection finalizer waits for
//     the namespace's resources), then role assignments, federated credential
//     and managed identity, then created resource groups that are empty.
//
// Tenant namespaces never get the platform identity: it lives in the
// operator's namespace, and onboarding refuses to run if a Tenant selects that
// namespace. Nor do they get a role over any managed identity: identities live
// in a resource group of the platform team's (onboarding.identityResourceGroup),
// which no Tenant's onboarding.resourceGroups may name, since a role there
// would let a namespace federate an identity with a subject of its choosing.
// The trust model, in which onboarding is the one part acting with the
// platform identity, is described once in package
// [github.com/aztenant/aztenant/reconcilers].
package onboarding
