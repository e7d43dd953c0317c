// Package entra owns the emulator's Entra ID wire protocol, apart from its directory: the
// OpenID discovery documents (a tenant's v2.0 authority and the AD FS one the az CLI signs
// in to), the client-credentials exchange and its rules (tenant, grant type, client ID,
// /.default scope, a client secret or a client assertion whose issuer is trusted, whose
// signature verifies, which is within nbf/exp and matches one federated identity
// credential exactly), the access tokens it issues (Entra's v1 app-only claims) and its
// errors in Entra's shape (AADSTS codes).
//
// Who exists is asked through Directory, which the emulator implements over its state;
// the keys come from package jwks. Serving HTTP, the audit log and fault injection stay
// with the emulator, which calls Server.Exchange from its token endpoints.
//
// It is part of the Azure emulator (emulator/, served by cmd/azure-emulator).
package entra
