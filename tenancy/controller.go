package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// TenantReconciler keeps each Tenant's status current: the namespaces it
// selects (sorted), a Ready condition that is False with reason
// NamespaceConflict when another Tenant selects one of them, InvalidSelector
// or InvalidPattern when the spec cannot be applied, Terminating while it is
// being deleted (held by offboarding), and
// ResourceGroupsExclusive, False when another Tenant's resource-group
// patterns can match the same groups.
//
// It only writes status: what a namespace may do is decided by the Directory
// and Guard from the spec, so a slow status never widens an allowance.
type TenantReconciler struct {
	// Client reads Tenants and Namespaces (from the cache) and patches status.
	Client client.Client
}

// SetupWithManager registers the reconciler. It watches Namespaces because a
// label change can move a namespace in or out of a Tenant's selector, and
// watches Tenants a second time so that a change to one Tenant re-checks the
// Tenants it overlaps (a conflict is visible on both sides).
func (r *TenantReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("tenant").
		For(&tenancyv1alpha1.Tenant{}).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.tenantsOfNamespace)).
		Watches(&tenancyv1alpha1.Tenant{}, handler.EnqueueRequestsFromMapFunc(r.overlappingTenants)).
		Complete(r)
}

// Reconcile computes one Tenant's selection and Ready condition.
// The operator's permissions for tenancy. Each line says why it is needed.
//
// Read Tenants and report which namespaces each selects:
// +kubebuilder:rbac:groups=tenancy.aztenant.io,resources=tenants,verbs=get;list;watch
// +kubebuilder:rbac:groups=tenancy.aztenant.io,resources=tenants/status,verbs=get;patch
// Match Tenants' namespace selectors against namespace labels:
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

func (r *TenantReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	t := &tenancyv1alpha1.Tenant{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var namespaces corev1.NamespaceList
	if err := r.Client.List(ctx, &namespaces); err != nil {
		return reconcile.Result{}, fmt.Errorf("list namespaces: %w", err)
	}
	var tenants tenancyv1alpha1.TenantList
	if err := r.Client.List(ctx, &tenants); err != nil {
		return reconcile.Result{}, fmt.Errorf("list tenants: %w", err)
	}

	p := compile(t)
	selected := []string{}
	nsLabels := make(map[string]labels.Set, len(namespaces.Items))
	for i := range namespaces.Items {
		ns := &namespaces.Items[i]
		l := labels.Set(ns.Labels)
		nsLabels[ns.Name] = l
		if ns.DeletionTimestamp == nil && p.selects(ns.Name, l) {
			selected = append(selected, ns.Name)
		}
	}
	slices.Sort(selected)

	// Every Tenant compiled once: both conditions compare this one with the others.
	others := make([]*policy, 0, len(tenants.Items))
	for i := range tenants.Items {
		others = append(others, compile(&tenants.Items[i]))
	}

	cond := metav1.Condition{Type: ConditionReady, ObservedGeneration: t.Generation}
	if !t.DeletionTimestamp.IsZero() {
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonTerminating
		cond.Message = fmt.Sprintf("being deleted: its %d namespace(s) are served for deletions only, nothing is created or updated; "+
			"it waits for what offboarding removes (see the Onboarded condition and status.onboarding)", len(selected))
	} else if reason, msg := p.validationError(); reason != "" {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, reason, msg
	} else if conflicts := conflictsOf(t.Name, selected, nsLabels, others); len(conflicts) > 0 {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, ReasonNamespaceConflict, strings.Join(conflicts, "; ")
	} else {
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonSelected
		cond.Message = fmt.Sprintf("selects %d namespace(s)", len(selected))
	}

	exclusive := metav1.Condition{Type: ConditionResourceGroupsExclusive, ObservedGeneration: t.Generation,
		Status: metav1.ConditionTrue, Reason: ReasonNoOverlap, Message: "no other Tenant's resource-group patterns can match the same groups"}
	if overlaps := overlapsOf(p, others); len(overlaps) > 0 {
		exclusive.Status, exclusive.Reason, exclusive.Message = metav1.ConditionFalse, ReasonResourceGroupsOverlap, strings.Join(overlaps, "; ")
	}

	base := t.DeepCopy()
	t.Status.Namespaces = selected
	t.Status.ObservedGeneration = t.Generation
	meta.SetStatusCondition(&t.Status.Conditions, cond)
	meta.SetStatusCondition(&t.Status.Conditions, exclusive)
	if equality.Semantic.DeepEqual(base.Status, t.Status) {
		return reconcile.Result{}, nil
	}
	// Optimistic lock: the onboarding controller writes other conditions of the
	// same list, and a merge patch from a stale cache would drop them.
	if err := r.Client.Status().Patch(ctx, t, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		if apierrors.IsConflict(err) {
			return reconcile.Result{RequeueAfter: 200 * time.Millisecond}, nil // the cache is behind: read again
		}
		return reconcile.Result{}, fmt.Errorf("patch tenant status: %w", err)
	}
	log.FromContext(ctx).V(1).Info("tenant status updated", "namespaces", len(selected), "reason", cond.Reason)
	return reconcile.Result{}, nil
}

// conflictsOf describes, per selected namespace, the other Tenants selecting it.
func conflictsOf(self string, selected []string, nsLabels map[string]labels.Set, all []*policy) []string {
	others := map[string][]string{}
	for _, q := range all {
		if q.name() == self || q.tenant.DeletionTimestamp != nil {
			continue
		}
		for _, ns := range selected {
			if q.selects(ns, nsLabels[ns]) {
				others[ns] = append(others[ns], q.name())
			}
		}
	}
	var out []string
	for _, ns := range selected {
		if names := others[ns]; len(names) > 0 {
			slices.Sort(names)
			out = append(out, fmt.Sprintf("namespace %q is also selected by Tenant %s", ns, quoteJoin(names)))
		}
	}
	return out
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// tenantsOfNamespace maps a Namespace event to the Tenants that select it now
// or listed it before (so a namespace leaving a selector is noticed).
func (r *TenantReconciler) tenantsOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	var tenants tenancyv1alpha1.TenantList
	if err := r.Client.List(ctx, &tenants); err != nil {
		log.FromContext(ctx).Error(err, "list tenants for namespace event", "namespace", obj.GetName())
		return nil
	}
	l := labels.Set(obj.GetLabels())
	var reqs []reconcile.Request
	for i := range tenants.Items {
		t := &tenants.Items[i]
		if slices.Contains(t.Status.Namespaces, obj.GetName()) || compile(t).selects(obj.GetName(), l) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: t.Name}})
		}
	}
	return reqs
}

// overlappingTenants maps a Tenant event to the other Tenants whose recorded
// namespaces overlap its recorded namespaces, or whose resource-group
// patterns overlap its own. Status is enough for namespaces: a Tenant's own
// reconcile records its new selection, and that status update is the event
// that reaches the others (old and new objects are both mapped on update).
func (r *TenantReconciler) overlappingTenants(ctx context.Context, obj client.Object) []reconcile.Request {
	t, ok := obj.(*tenancyv1alpha1.Tenant)
	if !ok {
		return nil
	}
	var tenants tenancyv1alpha1.TenantList
	if err := r.Client.List(ctx, &tenants); err != nil {
		log.FromContext(ctx).Error(err, "list tenants for tenant event", "tenant", t.Name)
		return nil
	}
	p := compile(t)
	var reqs []reconcile.Request
	for i := range tenants.Items {
		o := &tenants.Items[i]
		if o.Name == t.Name {
			continue
		}
		if slices.ContainsFunc(o.Status.Namespaces, func(ns string) bool { return slices.Contains(t.Status.Namespaces, ns) }) ||
			len(overlapsOf(p, []*policy{compile(o)})) > 0 {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: o.Name}})
		}
	}
	return reqs
}
