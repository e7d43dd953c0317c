// Package jwks owns the keys of the emulator's JWTs: its own RSA signing key (the kid as
// the key's thumbprint, the public key set Entra's discovery/keys serves, signing and
// verifying access tokens, the PEM form the state file keeps) and the key sets of the
// external OIDC issuers it trusts for client assertions (a literal JWKS, or discovery then
// jwks_uri fetched with a CA bundle, cached, and fetched again, rate-limited, when an
// unknown kid shows up).
//
// It knows nothing of Entra's rules (which claims must match what) nor of the directory:
// package entra decides whether an assertion is acceptable, using the keys found here.
//
// It is part of the Azure emulator (emulator/, served by cmd/azure-emulator).
package jwks
