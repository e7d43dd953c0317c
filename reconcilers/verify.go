package reconcilers

import (
	"context"
	"errors"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
)

// verify asks the kind's Hooks.Verify (kind.go says what its errors mean);
// an *Outcome stops the reconcile.
func (r *Reconciler) verify(ctx context.Context, calls armclient.Calls, obj azurev1alpha1.Resource, id string, scope identity.Scope) error {
	verify := r.Kind.Hooks().Verify
	if verify == nil {
		return nil
	}
	get := func(ctx context.Context, id, apiVersion string) (map[string]any, error) {
		return calls.WithAPIVersion(apiVersion).Get(ctx, id)
	}
	err := verify(ctx, get, obj, id)
	if err == nil {
		return nil
	}
	var reasoned interface{ Reason() string }
	if errors.As(err, &reasoned) {
		return newOutcome(reasoned.Reason(), err.Error())
	}
	return r.armFailure(err, scope)
}

// stepVerify asks the kind's Hooks.Verify, in each mode that may write or
// says what a write would do (observe shows what manage would refuse).
func (r *Reconciler) stepVerify(ctx context.Context, x *run) error {
	return r.verify(ctx, x.calls, x.obj, x.id, x.scope)
}
