package reconcilers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
)

// This file is the last step of the pipeline, and modeManage's: a write when
// Azure differs, then settle.

// stepAct ends the pipeline as its mode says: modeManage writes a difference
// and settles, modeObserve shows the differences (observing.go), modePreview
// says what would be done (preview.go), modeDelete deletes (delete.go).
func (r *Reconciler) stepAct(ctx context.Context, x *run) error {
	switch x.mode {
	case modeObserve:
		return r.observed(ctx, x)
	case modePreview:
		x.preview = r.previewed(ctx, x)
		return nil
	case modeDelete:
		return r.deleteInAzure(ctx, x)
	}
	actual := x.actual
	if x.change.diff != "" {
		var err error
		if actual, err = r.write(ctx, x.obj, x.patch, x.calls, x.scope, x.change, actual); err != nil {
			return err
		}
	}
	return r.settle(ctx, x.obj, x.calls, x.change, actual, x.period)
}

// write PUTs the desired body and polls the operation (operation.go); it
// returns the resource as Azure has it once the operation is done.
func (r *Reconciler) write(ctx context.Context, obj azurev1alpha1.Resource, p *patcher, calls armclient.Calls, scope identity.Scope, c change, actual map[string]any) (map[string]any, error) {
	st := obj.AzureStatus()
	switch {
	case actual == nil && st.ID == "":
		// Record the ID before creating: if the operator dies after the PUT,
		// the next attempt knows the resource is its own, not a stranger to adopt.
		st.ID = c.id
		newOutcome(ReasonReconciling, "Creating "+c.id).apply(obj)
		if err := p.patchStatus(ctx, obj); err != nil {
			return nil, err
		}
		r.decide(ctx, obj, DecisionCreate)
	case actual != nil:
		r.event(obj, corev1.EventTypeNormal, "Updating", fmt.Sprintf("Azure differs from the spec at %s: updating", c.diff))
		r.decide(ctx, obj, DecisionUpdate, "diff", c.diff)
	default:
		// Recorded but missing in Azure (deleted outside aztenant): created again.
		r.decide(ctx, obj, DecisionCreate, "diff", c.diff)
	}
	// A PUT replaces every tag: keep those the spec does not manage.
	poller, err := calls.Put(ctx, c.id, carryOnPut(r.Kind, mergeTags(c.desired, actual, c.dropped), actual))
	if err != nil {
		return nil, r.armFailure(err, scope)
	}
	// Azure has the values now; recorded with a resume token, the digest
	// stays true of the operation a restarted operator resumes.
	st.WriteOnlyHash = c.woHash
	// Its answer is recorded once the operation is done (settle, or record).
	r.startRecord(ctx, obj, c)
	body, err := r.poll(ctx, poller, obj, scope, "Writing "+c.id)
	if err != nil || body != nil {
		return body, err
	}
	if body, err = calls.Get(ctx, c.id); err != nil {
		return nil, r.armFailure(err, scope)
	}
	return body, nil
}

// settle records in status what Azure has (Kind.Observe), waits for an
// operation still running there, and writes the exports (export.go): then
// the resource is Ready, and compared with Azure again after the sync
// period.
func (r *Reconciler) settle(ctx context.Context, obj azurev1alpha1.Resource, calls armclient.Calls, c change, actual map[string]any, period time.Duration) error {
	st := obj.AzureStatus()
	st.ID = c.id
	st.WriteOnlyHash = c.woHash // unchanged, or "" once the spec has no write-only value
	if c.tagged {
		st.ManagedTags = c.specTags // written (or already there): the names to remove once they leave the spec
	}
	if actual != nil {
		r.Kind.Observe(obj, actual)
		st.ProvisioningState = provisioningState(actual)
	}
	if ps := st.ProvisioningState; !terminalState(ps) {
		// An operation is still running in Azure (ours, seen before its resume
		// token, or someone else's): the resource is not Ready until it ends.
		return newOutcome(ReasonReconciling, fmt.Sprintf("Azure reports provisioningState %s for %s: waiting for it to finish", ps, c.id)).after(r.PollInterval)
	}
	if actual != nil && c.listed.at.IsZero() {
		if k := st.AzureKeeps; k != nil && k.Written != "" {
			// Azure's answer to a write of this reconcile, from the operation's
			// final body (or its GET): the common case, no extra read.
			r.learn(ctx, obj, c.secrets, c.desired, actual, c.keptBefore)
		} else {
			r.prune(ctx, obj, c, actual)
		}
	}
	keep, o := r.export(ctx, obj, calls, c.id)
	if o != nil {
		return exportRetry(o, period)
	}
	if keep > 0 && keep < period {
		// The secret outputs are due before the next sync.
		return keptReady(obj, readyOutcome(keep))
	}
	if !c.listed.at.IsZero() {
		return keptReady(obj, readyOutcome(period).after(nextCheck(c.listed, period)))
	}
	return keptReady(obj, readyOutcome(period))
}

// keptReady adds to Ready's message how many paths Azure keeps its own way.
func keptReady(obj azurev1alpha1.Resource, o *Outcome) *Outcome {
	o.Message += keptNote(obj)
	return o
}
