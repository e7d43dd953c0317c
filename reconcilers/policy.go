package reconcilers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	// PolicyDetachOnDelete manages the resource but leaves it in Azure when the
	// object is deleted.
	PolicyDetachOnDelete Policy = "detach-on-delete"
)

// ParsePolicy validates a policy value.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicyManage, PolicySkip, PolicyDetachOnDelete:
		return p, nil
	}
	return "", fmt.Errorf("reconcile policy %q: want manage, skip or detach-on-delete", s)
}

// policyFor reads the policy from the resource, then its namespace, then the
// operator default. An adopted resource defaults to detach-on-delete: the
// operator did not create it, so it does not delete it unless told to.
func (r *Reconciler) policyFor(ctx context.Context, obj azurev1alpha1.Resource) (Policy, error) {
	if v, ok := obj.GetAnnotations()[AnnotationReconcilePolicy]; ok {
		return ParsePolicy(v)
	}
	var ns corev1.Namespace
	if err := r.Client.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, &ns); err == nil {
		if v, ok := ns.Annotations[AnnotationReconcilePolicy]; ok {
			return ParsePolicy(v)
		}
	}
	if obj.AzureStatus().Adopted {
		return PolicyDetachOnDelete, nil
	}
	return r.DefaultPolicy, nil
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
