package reconcilers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
)

// This file previews a reconcile for a Plan (package reconcilers/planning): the
// pipeline in modePreview, with the object as it would be applied, GETs and
// the reads a check needs as the only ARM calls.

// Planned is an object previewed earlier in the same plan, which a later one may
// name as its owner.
type Planned struct {
	// ID is its ARM ID; Creating, that it does not exist in Azure yet.
	ID       string
	Creating bool
}

// PlannedOwner finds an object previewed earlier in the same plan.
type PlannedOwner func(gk schema.GroupKind, name string) (Planned, bool)

// Preview is what reconciling an object would do in Azure now.
type Preview struct {
	Action      planv1alpha1.Action
	ID          string
	Reason      string
	Message     string
	Differences []azurev1alpha1.Difference
	// KeptByAzure are the paths where Azure differs from the spec as it
	// answered the last write (status.azureKeeps): not written again, so not
	// Differences.
	KeptByAzure []azurev1alpha1.Difference
}

// Planned is the preview as an owner of later objects.
func (p Preview) Planned() (Planned, bool) {
	return Planned{ID: p.ID, Creating: p.Action == planv1alpha1.ActionCreate}, p.ID != ""
}

// Preview says what reconciling obj, as given (not as stored), would do: with
// the stored object's status when it exists (what it created, its write-only
// digest), the pipeline of a real reconcile in modePreview (the namespace's
// identity, the guards, the references, Verify). It never writes to Azure or
// to the cluster.
func (r *Reconciler) Preview(ctx context.Context, obj azurev1alpha1.Resource, owners PlannedOwner) Preview {
	stored := r.Kind.New()
	switch err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), stored); {
	case err == nil:
		*obj.AzureStatus() = *stored.AzureStatus().DeepCopy()
		obj.SetUID(stored.GetUID())
	case !apierrors.IsNotFound(err):
		return unknown(ReasonGuardFailed, "reading the object: "+err.Error())
	}
	x := &run{mode: modePreview, obj: obj, owners: owners}
	if err := r.run(ctx, x); err != nil {
		id := x.id
		if id == "" {
			id = obj.AzureStatus().ID
		}
		return fromOutcome(err, id)
	}
	return x.preview
}

// previewed is modePreview's last step: the plan as a Preview.
func (r *Reconciler) previewed(ctx context.Context, x *run) Preview {
	obj, id, actual, c := x.obj, x.id, x.actual, x.change
	observing := x.policy == PolicyObserve
	if actual == nil {
		if observing {
			return Preview{Action: planv1alpha1.ActionNoChange, ID: id, Message: "does not exist in Azure; reconcile policy observe would not create it"}
		}
		msg := "would be created"
		if x.parentCreating {
			msg += ", with its owner"
		}
		return Preview{Action: planv1alpha1.ActionCreate, ID: id, Message: msg}
	}
	diffs := r.allDifferences(obj, c, actual)
	var kept []azurev1alpha1.Difference
	if len(c.kept) > 0 {
		kept = r.answersFor(ctx, obj, x.body.secrets, c.desired, actual).keptShown(c.kept)
	}
	note := ""
	if len(kept) > 0 {
		note = fmt.Sprintf("; Azure keeps %d path(s) its own way (keptByAzure)", len(kept))
	}
	switch {
	case len(diffs) == 0:
		return Preview{Action: planv1alpha1.ActionNoChange, ID: id, Message: "Azure matches the spec" + note, KeptByAzure: kept}
	case observing:
		return Preview{Action: planv1alpha1.ActionNoChange, ID: id, Differences: shown(diffs), KeptByAzure: kept,
			Message: fmt.Sprintf("Azure differs at %d path(s); reconcile policy observe shows them and writes nothing%s", len(diffs), note)}
	}
	return Preview{Action: planv1alpha1.ActionUpdate, ID: id, Differences: shown(diffs), KeptByAzure: kept,
		Message: fmt.Sprintf("Azure differs from the spec at %d path(s); they would be written%s", len(diffs), note)}
}

func unknown(reason, msg string) Preview {
	return Preview{Action: planv1alpha1.ActionUnknown, Reason: reason, Message: msg}
}

// fromOutcome is a stop of the pipeline as a preview: nothing to do (a policy
// that leaves the object alone) is NoChange, a resource to adopt first
// NeedsAdoption, a refusal Denied, anything else (waiting, Azure failing)
// Unknown.
func fromOutcome(err error, id string) Preview {
	o := outcomeOf(err)
	if o == nil {
		return Preview{Action: planv1alpha1.ActionUnknown, ID: id, Reason: ReasonGuardFailed, Message: err.Error()}
	}
	action := planv1alpha1.ActionUnknown
	switch {
	case o.Ready() == metav1.ConditionTrue:
		action = planv1alpha1.ActionNoChange
	case o.Reason == ReasonAlreadyExists:
		action = planv1alpha1.ActionNeedsAdoption
	case o.Class().Class == ClassTerminal && o.Reason != ReasonReferenceNotFound && o.Reason != ReasonAuthorizationFailed:
		action = planv1alpha1.ActionDenied
	}
	return Preview{Action: action, ID: id, Reason: o.Reason, Message: o.Message}
}
