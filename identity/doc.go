// Package identity is the credential broker. For a namespaced object it resolves
// the Identity that serves it (annotation aztenant.io/identity, else the Identity
// named "default", always in the object's own namespace), requests a short-lived
// token for that Identity's ServiceAccount with the TokenRequest API, and hands
// back an azcore.TokenCredential that exchanges it with Entra ID, plus the Scope
// (tenant, subscription, principal) the caller may act in.
//
// It owns the caches that make this cheap: ServiceAccount tokens per
// (namespace, serviceaccount, audience), refreshed before expiry with one request
// in flight per key, and one credential per (namespace, serviceaccount, clientID,
// tenantID). When resolution fails, the caller gets a typed error and must not
// call Azure: there is no fallback to the operator's own identity. The trust
// model this serves is described once, in package
// [github.com/aztenant/aztenant/reconcilers].
package identity
