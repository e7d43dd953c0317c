package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Annotations users set on resources (and, for the policy, on namespaces).
const (
	AnnotationReconcilePolicy = "aztenant.io/reconcile-policy"
	AnnotationAdopt           = "aztenant.io/adopt"
	AnnotationSyncPeriod      = "aztenant.io/sync-period"
)

// Policy says what the operator may do to a resource in Azure.
type Policy string

const (
	// PolicyManage creates, updates and, when the object is deleted, deletes.
	PolicyManage Policy = "manage"
	// PolicySkip neither reads nor writes Azure.
	PolicySkip Policy = "skip"
	// PolicyObserve reads the resource and shows where Azure differs from the
	// spec (status.differences, condition InSync); it never writes to Azure,
	// and deleting the object leaves the resource there.
	PolicyObserve Policy = "observe"
	// PolicyDetachOnDelete manages the resource but leaves it in Azure when the
	// object is deleted.
	PolicyDetachOnDelete Policy = "detach-on-delete"
)

// ParsePolicy validates a policy value.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicyManage, PolicySkip, PolicyDetachOnDelete, PolicyObserve:
		return p, nil
	}
	return "", fmt.Errorf("reconcile policy %q: want manage, observe, skip or detach-on-delete", s)
}

// invalidPolicyError is an annotation whose value is not a policy: the
// spec (or the namespace) must change.
type invalidPolicyError struct{ err error }

func (e *invalidPolicyError) Error() string { return e.err.Error() }

func parseAnnotation(where, v string) (Policy, error) {
	p, err := ParsePolicy(v)
	if err != nil {
		return "", &invalidPolicyError{fmt.Errorf("%s %s annotation: %w", where, AnnotationReconcilePolicy, err)}
	}
	return p, nil
}

// policyFor reads the policy from the resource, then its namespace, then the
// operator default. An adopted resource defaults to detach-on-delete: the
// operator did not create it, so it does not delete it unless told to.
//
// It is read at every reconcile, never remembered: a change of the
// namespace's annotation reconciles the namespace's objects (SetupWithManager
// watches it). For an object being deleted the namespace is read from the API
// server, not the cache (Reconcile reads the object itself the same way), so
// that what is deleted in Azure follows the policy in force at that moment; a
// namespace that cannot be read then is an error, retried, and nothing is
// deleted on a guess.
func (r *Reconciler) policyFor(ctx context.Context, obj azurev1alpha1.Resource) (Policy, error) {
	if v, ok := obj.GetAnnotations()[AnnotationReconcilePolicy]; ok {
		return parseAnnotation("the object's", v)
	}
	if v, ok := obj.GetAnnotations()[AnnotationASOReconcilePolicy]; ok {
		return asoPolicy(v) // a manifest written for Azure Service Operator (aso.go)
	}
	var reader client.Reader = r.Client
	deleting := !obj.GetDeletionTimestamp().IsZero()
	if deleting && r.APIReader != nil {
		reader = r.APIReader
	}
	var ns corev1.Namespace
	err := reader.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, &ns)
	switch {
	case err == nil:
		if v, ok := ns.Annotations[AnnotationReconcilePolicy]; ok {
			return parseAnnotation("namespace "+ns.Name+"'s", v)
		}
	case deleting && !apierrors.IsNotFound(err):
		return "", fmt.Errorf("reading namespace %s for its %s annotation before deleting in Azure: %w", obj.GetNamespace(), AnnotationReconcilePolicy, err)
	}
	if obj.AzureStatus().Adopted {
		return PolicyDetachOnDelete, nil
	}
	return r.DefaultPolicy, nil
}

// leftAlone is the outcome of a policy or a release that leaves Azure alone
// (skip, aztenant.io/release), or nil.
func leftAlone(obj azurev1alpha1.Resource, policy Policy) *Outcome {
	switch {
	case policy == PolicySkip:
		return newOutcome(ReasonReconcileSkipped, AnnotationReconcilePolicy+" is skip: Azure is neither read nor written")
	case released(obj):
		what := "its Azure resource"
		if id := obj.AzureStatus().ID; id != "" {
			what = id
		}
		return newOutcome(ReasonReleased, AnnotationRelease+" is \"true\": this object lets go of "+what+" and writes nothing to it; another object may adopt it, and deleting this one leaves it in Azure")
	}
	return nil
}

// syncPeriod is the per-object annotation or the operator's period.
func (r *Reconciler) syncPeriod(obj azurev1alpha1.Resource) (time.Duration, error) {
	if v, ok := obj.GetAnnotations()[AnnotationSyncPeriod]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return 0, fmt.Errorf("annotation %s=%q: want a duration of at least 1s, such as 10m", AnnotationSyncPeriod, v)
		}
		return d, nil
	}
	return r.SyncPeriod, nil
}

// stepPolicy reads the object's reconcile policy: an object being deleted
// goes on in modeDelete, an observed one in modeObserve, and one the policy
// leaves alone (skip, released) stops here.
func (r *Reconciler) stepPolicy(ctx context.Context, x *run) error {
	policy, err := r.policyFor(ctx, x.obj)
	var invalid *invalidPolicyError
	switch {
	case errors.As(err, &invalid):
		return newOutcome(ReasonInvalidSpec, err.Error())
	case err != nil:
		// Not known: in particular, nothing is deleted in Azure on a policy
		// that could not be read.
		return err
	}
	if policy == "" {
		policy = PolicyManage
	}
	x.policy = policy
	if x.mode == modeManage && !x.obj.GetDeletionTimestamp().IsZero() {
		x.mode = modeDelete
		return nil
	}
	if x.mode != modePreview && policy != PolicyObserve {
		notObserved(x.obj)
	}
	if o := leftAlone(x.obj, policy); o != nil {
		if x.mode != modePreview {
			// Nothing in Azure is the object's to delete any more: the
			// finalizer goes with the patch that ends the reconcile.
			controllerutil.RemoveFinalizer(x.obj, Finalizer)
		}
		return o
	}
	if x.mode == modePreview {
		return nil
	}
	if x.period, err = r.syncPeriod(x.obj); err != nil {
		return newOutcome(ReasonInvalidSpec, err.Error())
	}
	if policy == PolicyObserve {
		x.mode = modeObserve
	}
	return nil
}
