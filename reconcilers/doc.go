// Package reconcilers holds the one generic ARM reconciler and the small
// adapter (Kind) each Azure resource type plugs into it.
//
// The generic reconciler owns everything kinds share: the finalizer, the
// identity from the credential broker, the tenancy guard, owners, long-running
// operations resumed from status, comparing desired with observed state so
// that only a difference causes a write, reconcile policies, adoption, safe
// deletion, error classification into conditions, and exports to Secrets and
// ConfigMaps. A Kind only knows its ARM type, API version, how to build its
// PUT body from the spec, and which outputs to copy back into status.
package reconcilers
