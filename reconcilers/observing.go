package reconcilers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file is the observe policy (modeObserve): the pipeline up to the plan,
// with GETs as the only ARM calls, and every difference shown instead of
// written.

// ConditionInSync says, while an object is observed, whether Azure matches its spec.
const ConditionInSync = "InSync"

// Reasons of the InSync condition, and Ready's while observed.
const (
	// ReasonObserved (Ready=True): observed; status.differences and InSync say
	// how Azure compares.
	ReasonObserved = "Observed"
	// ReasonMatches (InSync=True): Azure holds what the spec says.
	ReasonMatches = "Matches"
	// ReasonDiffers (InSync=False): status.differences lists where it does not.
	ReasonDiffers = "Differs"
	// ReasonNotInAzure (InSync=False): there is no resource; manage would create it.
	ReasonNotInAzure = "NotFoundInAzure"
)

// maxDifferences shown in status; the rest are counted.
const maxDifferences = 64

// observed is modeObserve's last step: the resource was read with the
// namespace's identity, through the same guards, references, verify and plan
// as a write; every difference is recorded in status instead of written. It
// calls nothing but GETs: no finalizer, no write, no export (reading keys is
// a POST).
func (r *Reconciler) observed(ctx context.Context, x *run) error {
	obj, id, actual := x.obj, x.id, x.actual
	st := obj.AzureStatus()
	again := jitter(x.period)
	if actual == nil {
		st.Differences = []azurev1alpha1.Difference{{Path: "(resource)", Desired: "(exists)", Actual: absent}}
		setInSync(obj, metav1.ConditionFalse, ReasonNotInAzure, id+" does not exist in Azure; with reconcile policy manage it would be created")
		return newOutcome(ReasonObserved, "Observed: "+id+" does not exist in Azure (InSync)").after(again)
	}
	diffs := r.allDifferences(obj, x.change, actual)
	st.Differences = shown(diffs)
	r.Kind.Observe(obj, actual)
	st.ProvisioningState = provisioningState(actual)
	note := ""
	if x.otherOwner != "" {
		note = fmt.Sprintf("; it is owned by %s, so reconcile policy manage would not write it", x.otherOwner)
	}
	kept := keptNote(obj)
	if len(diffs) == 0 {
		setInSync(obj, metav1.ConditionTrue, ReasonMatches, "Azure matches the spec"+kept+note)
		return newOutcome(ReasonObserved, "Observed: Azure matches the spec"+kept+note).after(again)
	}
	if kept == "" {
		// Observing writes nothing, so it cannot tell a value Azure keeps its
		// own way (answered so to every write) from one changed in Azure.
		kept = "; some may be values Azure keeps its own way, which only a write shows"
	}
	msg := fmt.Sprintf("Azure differs from the spec at %d path(s), first %s (status.differences); reconcile policy manage would write them%s%s", len(diffs), diffs[0].Path, kept, note)
	setInSync(obj, metav1.ConditionFalse, ReasonDiffers, msg)
	return newOutcome(ReasonObserved, "Observed: "+msg).after(again)
}

// allDifferences is every path where actual differs from the planned change c,
// as a write would change it: the compared body but for the paths Azure keeps
// its own way (c.kept), tags removed from the spec, and write-only values
// (never shown) not known to be the ones in Azure.
func (r *Reconciler) allDifferences(obj azurev1alpha1.Resource, c change, actual map[string]any) []comparison.Difference {
	st := obj.AzureStatus()
	facts, hooks := r.Kind.Facts(), r.Kind.Hooks()
	// The paths Azure keeps its own way (plan's, from status.azureKeeps) are
	// not differences: a write would not change them.
	diffs := withoutKept(comparison.Differences(c.desired, actual, comparisonRules(facts, hooks)), c.kept)
	tags := tagsOf(actual)
	for _, k := range c.dropped {
		for tk, v := range tags {
			if strings.EqualFold(tk, k) {
				diffs = append(diffs, comparison.Difference{Path: "tags." + tk, Actual: v}) // removed from the spec
			}
		}
	}
	if c.woHash != "" && c.woHash != st.WriteOnlyHash {
		// ARM never returns write-only values: not the ones last written (or
		// none known), so manage writes them. Neither value is shown.
		for _, p := range facts.WriteOnly {
			if _, ok := valueAt(c.desired, p); ok {
				diffs = append(diffs, comparison.Difference{Path: p, Desired: masked, Actual: masked})
			}
		}
	}
	if c.diff != "" && len(diffs) == 0 {
		diffs = []comparison.Difference{{Path: c.diff, Desired: masked, Actual: masked}} // plan's, whatever it is
	}
	return diffs
}

const (
	absent = "(absent)"
	masked = "(not shown)"
)

// shown renders differences for status: values as JSON, cut to fit, write-only
// values never (they are skipped by the comparison, and plan's digest reports
// them without a value).
func shown(diffs []comparison.Difference) []azurev1alpha1.Difference {
	out := make([]azurev1alpha1.Difference, 0, min(len(diffs), maxDifferences))
	for i, d := range diffs {
		if i == maxDifferences-1 && len(diffs) > maxDifferences {
			out = append(out, azurev1alpha1.Difference{Path: "(more)", Desired: fmt.Sprintf("%d more differences", len(diffs)-i)})
			break
		}
		out = append(out, azurev1alpha1.Difference{Path: cut(d.Path), Desired: value(d.Desired), Actual: value(d.Actual)})
	}
	return out
}

func value(v any) string {
	switch t := v.(type) {
	case nil:
		return absent
	case string:
		if t == masked {
			return t
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(data))
}

// cut keeps a value within the status field's 1024 characters.
func cut(s string) string {
	const limit = 1000
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "…" // not in the middle of a UTF-8 sequence
}

func setInSync(obj azurev1alpha1.Resource, status metav1.ConditionStatus, reason, msg string) {
	st := obj.AzureStatus()
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: ConditionInSync, Status: status, Reason: reason, Message: msg, ObservedGeneration: obj.GetGeneration()})
}

// notObserved drops what observing recorded, once the object is not observed.
func notObserved(obj azurev1alpha1.Resource) {
	st := obj.AzureStatus()
	st.Differences = nil
	meta.RemoveStatusCondition(&st.Conditions, ConditionInSync)
}
