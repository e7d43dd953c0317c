package reconcilers

import (
	"context"
	"errors"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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

// verify asks a Verifier kind; a non-nil state stops the reconcile.
func (r *Reconciler) verify(ctx context.Context, calls armCalls, obj azurev1alpha1.Resource, id string, scope identity.Scope) (*state, reconcile.Result) {
	v, ok := r.Kind.(Verifier)
	if !ok {
		return nil, reconcile.Result{}
	}
	get := func(ctx context.Context, id, apiVersion string) (map[string]any, error) {
		return armCalls{client: calls.client, apiVersion: apiVersion}.get(ctx, id)
	}
	err := v.Verify(ctx, get, obj, id)
	if err == nil {
		return nil, reconcile.Result{}
	}
	var reasoned interface{ Reason() string }
	if errors.As(err, &reasoned) {
		s := newState(reasoned.Reason(), err.Error())
		return &s, reconcile.Result{RequeueAfter: s.retryAfter(30*time.Second, 5*time.Minute)}
	}
	s, res, _ := r.armFailure(err, scope)
	return s, res
}
