package reconcilers

import (
	"context"
	"errors"
	"time"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// Verifier is implemented by kinds that must read Azure before writing, to
// refuse what the spec alone cannot show: a role assignment naming a custom
// role reads the role's definition and refuses a privileged one. Verify runs
// at every reconcile, after the guards and before the resource is read or
// written, and only while the object is not being deleted.
//
// An error with a Reason() method (such as PolicyDenied) stops the object
// there, Ready=False with that reason (of the class readyReasons gives it)
// and the error's message, as a guard's denial does, and it is looked at
// again a few minutes later (a transient reason, such as GuardFailed, sooner). Any other error
// is an ARM failure (AuthorizationFailed when the identity may not read what
// Verify needs, AzureUnavailable ...) and is retried as one.
type Verifier interface {
	Verify(ctx context.Context, get ARMGetter, obj azurev1alpha1.Resource, armID string) error
}

// ARMGetter reads an ARM ID at an api-version with the object's own identity
// (never the operator's): the decoded body, or nil when it does not exist.
type ARMGetter func(ctx context.Context, id, apiVersion string) (map[string]any, error)

// verify asks a Verifier kind; an *Outcome stops the reconcile.
func (r *Reconciler) verify(ctx context.Context, calls armCalls, obj azurev1alpha1.Resource, id string, scope identity.Scope) error {
	v, ok := r.Kind.(Verifier)
	if !ok {
		return nil
	}
	get := func(ctx context.Context, id, apiVersion string) (map[string]any, error) {
		return armCalls{client: calls.client, apiVersion: apiVersion}.get(ctx, id)
	}
	err := v.Verify(ctx, get, obj, id)
	if err == nil {
		return nil
	}
	var reasoned interface{ Reason() string }
	if errors.As(err, &reasoned) {
		return newOutcome(reasoned.Reason(), err.Error()).afterByClass(30*time.Second, 5*time.Minute)
	}
	return r.armFailure(err, scope)
}
