package reconcilers

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
)

// This file previews a reconcile for a Plan (package reconcilers/planning): the
// flow of the package doc up to the plan, with the object as it would be
// applied, GETs and the reads a check needs as the only ARM calls.

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
// digest), the namespace's identity, the guards, the references and Verify of a
// real reconcile. It never writes to Azure or to the cluster.
func (r *Reconciler) Preview(ctx context.Context, obj azurev1alpha1.Resource, owners PlannedOwner) Preview {
	stored := r.Kind.New()
	switch err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), stored); {
	case err == nil:
		*obj.AzureStatus() = *stored.AzureStatus().DeepCopy()
		obj.SetUID(stored.GetUID())
	case !apierrors.IsNotFound(err):
		return unknown(ReasonGuardFailed, "reading the object: "+err.Error())
	}
	policy, err := r.policyFor(ctx, obj)
	if err != nil {
		return unknown(ReasonInvalidSpec, err.Error())
	}
	if policy == "" {
		policy = PolicyManage
	}
	if o := leftAlone(obj, policy); o != nil {
		return Preview{Action: planv1alpha1.ActionNoChange, ID: obj.AzureStatus().ID, Reason: o.Reason, Message: o.Message}
	}
	calls, scope, err := r.credential(ctx, obj)
	if err != nil {
		return fromOutcome(err, "")
	}
	parentID, o := r.parentID(ctx, obj, scope)
	parentCreating := false
	if o != nil {
		ref := obj.Owner()
		p, ok := Planned{}, false
		if o.Reason == ReasonWaitingForOwner && ref != nil && ref.Name != "" && owners != nil {
			p, ok = owners(r.ownerKindOf(obj), ref.Name)
		}
		if !ok {
			return fromOutcome(o, "")
		}
		parentID, parentCreating = p.ID, p.Creating
	}
	id := armIDOf(r.Kind, obj, parentID)
	if st := obj.AzureStatus(); st.ID != "" && !strings.EqualFold(st.ID, id) {
		return Preview{Action: planv1alpha1.ActionDenied, ID: id, Reason: ReasonInvalidSpec,
			Message: fmt.Sprintf("the resource is %s in Azure but the spec names %s: the name and owner cannot change", st.ID, id)}
	}
	if o := r.admit(ctx, obj, id, scope, func(o *Outcome) *Outcome { return o }); o != nil {
		return fromOutcome(o, id)
	}
	b, err := r.build(ctx, obj)
	if err != nil {
		return fromOutcome(err, id)
	}
	if o := r.admitReferences(ctx, obj, b.desired); o != nil {
		return fromOutcome(o, id)
	}
	if o := r.admitNames(ctx, obj, id, b.desired); o != nil {
		return fromOutcome(o, id)
	}
	armc := armCalls{client: calls, apiVersion: r.Kind.Facts().APIVersion}
	if err := r.verify(ctx, armc, obj, id, scope); err != nil {
		return fromOutcome(err, id)
	}
	observing := policy == PolicyObserve
	var actual map[string]any
	if !parentCreating {
		if actual, err = armc.get(ctx, id); err != nil {
			o := r.armFailure(err, scope)
			r.hintNewGroup(obj, o) // as a reconcile says it
			return fromOutcome(o, id)
		}
	}
	if actual == nil {
		if observing {
			return Preview{Action: planv1alpha1.ActionNoChange, ID: id, Message: "does not exist in Azure; reconcile policy observe would not create it"}
		}
		msg := "would be created"
		if parentCreating {
			msg += ", with its owner"
		}
		return Preview{Action: planv1alpha1.ActionCreate, ID: id, Message: msg}
	}
	st := obj.AzureStatus()
	if st.ID == "" {
		who, err := r.ownerOf(ctx, obj, id, actual, false)
		if err != nil {
			return unknown(ReasonGuardFailed, "could not check who owns the resource: "+err.Error())
		}
		if who != "" {
			return Preview{Action: planv1alpha1.ActionDenied, ID: id, Reason: ReasonOwnedByAnother, Message: fmt.Sprintf("%s is owned by %s: it would be neither adopted nor written", id, who)}
		}
		if !observing && !r.Kind.Facts().WithParent && obj.GetAnnotations()[AnnotationAdopt] != "true" {
			return Preview{Action: planv1alpha1.ActionNeedsAdoption, ID: id, Reason: ReasonAlreadyExists,
				Message: fmt.Sprintf("%s already exists in Azure and is not this object's; annotate it %s: \"true\" to adopt it", id, AnnotationAdopt)}
		}
	}
	// As a reconcile would: Azure's answer to a write not recorded yet (on
	// the copy of the stored status), then the plan, which consults it.
	r.record(ctx, obj, b, actual)
	c, err := r.plan(ctx, obj, b, id, actual, "")
	if err != nil {
		return fromOutcome(err, id)
	}
	diffs := r.allDifferences(obj, c, actual)
	var kept []azurev1alpha1.Difference
	if len(c.kept) > 0 {
		kept = r.answersFor(ctx, obj, b.secrets, c.desired, actual).keptShown(c.kept)
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

// fromOutcome is a stop of the flow as a preview: a refusal is Denied, anything
// else (waiting, Azure failing) Unknown.
func fromOutcome(err error, id string) Preview {
	o := outcomeOf(err)
	if o == nil {
		return Preview{Action: planv1alpha1.ActionUnknown, ID: id, Reason: ReasonGuardFailed, Message: err.Error()}
	}
	action := planv1alpha1.ActionUnknown
	if o.Class().Class == ClassTerminal && o.Reason != ReasonReferenceNotFound && o.Reason != ReasonAuthorizationFailed {
		action = planv1alpha1.ActionDenied
	}
	return Preview{Action: action, ID: id, Reason: o.Reason, Message: o.Message}
}
