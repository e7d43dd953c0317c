package planning

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// Planner is the Plan controller.
type Planner struct {
	Client   client.Client
	Registry *reconcilers.Registry
	// Served reports whether the operator serves a kind (its CRD is installed).
	Served func(schema.GroupKind) bool
	// New makes the reconciler of a kind, configured as the served ones are;
	// the Planner only calls its Preview.
	New func(reconcilers.Kind) *reconcilers.Reconciler
	// TTL is how long an answered Plan is kept (an hour by default).
	TTL time.Duration
}

// +kubebuilder:rbac:groups=plan.aztenant.io,resources=plans,verbs=get;list;watch;delete
// With --shards, the labeller writes the shard-bucket label on Plans:
// +kubebuilder:rbac:groups=plan.aztenant.io,resources=plans,verbs=patch
// +kubebuilder:rbac:groups=plan.aztenant.io,resources=plans/status,verbs=get;patch;update

// SetupWithManager registers the controller.
func (p *Planner) SetupWithManager(mgr ctrl.Manager) error {
	if p.TTL == 0 {
		p.TTL = time.Hour
	}
	return ctrl.NewControllerManagedBy(mgr).Named("plan").
		For(&planv1alpha1.Plan{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(p)
}

// ConditionReady says a Plan's status answers its spec.
const ConditionReady = "Ready"

// Reconcile answers a Plan once per generation, and deletes it TTL later.
func (p *Planner) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var plan planv1alpha1.Plan
	if err := p.Client.Get(ctx, req.NamespacedName, &plan); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if c := meta.FindStatusCondition(plan.Status.Conditions, ConditionReady); c != nil && c.Status == metav1.ConditionTrue && plan.Status.ObservedGeneration == plan.Generation {
		if left := time.Until(c.LastTransitionTime.Add(p.TTL)); left > 0 {
			return reconcile.Result{RequeueAfter: left}, nil
		}
		return reconcile.Result{}, client.IgnoreNotFound(p.Client.Delete(ctx, &plan))
	}
	base := plan.DeepCopy()
	plan.Status.Objects = p.answer(ctx, &plan)
	plan.Status.ObservedGeneration = plan.Generation
	meta.SetStatusCondition(&plan.Status.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue,
		Reason: "Planned", Message: fmt.Sprintf("%d object(s) planned", len(plan.Status.Objects)), ObservedGeneration: plan.Generation})
	if err := p.Client.Status().Patch(ctx, &plan, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: p.TTL}, nil
}

// answer previews each object in order; an object may name an earlier one as its owner.
func (p *Planner) answer(ctx context.Context, plan *planv1alpha1.Plan) []planv1alpha1.PlannedObject {
	planned := map[string]reconcilers.Planned{}
	key := func(gk schema.GroupKind, name string) string { return gk.String() + "/" + name }
	owners := func(gk schema.GroupKind, name string) (reconcilers.Planned, bool) {
		o, ok := planned[key(gk, name)]
		return o, ok
	}
	out := make([]planv1alpha1.PlannedObject, 0, len(plan.Spec.Objects))
	for i, raw := range plan.Spec.Objects {
		obj, k, po := p.decode(raw, plan.Namespace)
		if obj == nil {
			po.Name = fmt.Sprintf("%s (object %d)", po.Name, i+1)
			out = append(out, po)
			continue
		}
		gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
		pv := p.New(k).Preview(ctx, obj, owners)
		if o, ok := pv.Planned(); ok {
			planned[key(gk, obj.GetName())] = o
		}
		out = append(out, planv1alpha1.PlannedObject{Kind: gk.String(), Name: obj.GetName(), ID: pv.ID, Action: pv.Action,
			Reason: pv.Reason, Message: pv.Message, Differences: pv.Differences, KeptByAzure: pv.KeptByAzure})
	}
	return out
}

// decode makes a typed object of a served kind in namespace, or says why not.
func (p *Planner) decode(raw runtime.RawExtension, namespace string) (azurev1alpha1.Resource, reconcilers.Kind, planv1alpha1.PlannedObject) {
	var tm struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
	}
	bad := func(reason, format string, args ...any) (azurev1alpha1.Resource, reconcilers.Kind, planv1alpha1.PlannedObject) {
		return nil, nil, planv1alpha1.PlannedObject{Kind: tm.Kind, Name: tm.Name, Action: planv1alpha1.ActionDenied, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	if err := json.Unmarshal(raw.Raw, &tm); err != nil {
		return bad(reconcilers.ReasonInvalidSpec, "not an object: %v", err)
	}
	gvk := tm.GroupVersionKind()
	k, ok := p.Registry.Lookup(gvk.GroupKind())
	if !ok || (p.Served != nil && !p.Served(gvk.GroupKind())) {
		return bad(reconcilers.ReasonInvalidSpec, "%s is not a kind this operator serves", gvk.GroupKind())
	}
	if tm.Namespace != "" && tm.Namespace != namespace {
		return bad("CrossNamespaceReference", "the object names namespace %q; a Plan of namespace %q plans only its own objects", tm.Namespace, namespace)
	}
	obj := k.New()
	if err := json.Unmarshal(raw.Raw, obj); err != nil {
		return bad(reconcilers.ReasonInvalidSpec, "%v", err)
	}
	obj.SetNamespace(namespace)
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	*obj.AzureStatus() = azurev1alpha1.ResourceStatus{} // the stored object's, if any, not the file's
	return obj, k, planv1alpha1.PlannedObject{}
}
