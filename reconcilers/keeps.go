package reconcilers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file is the record of Azure's answers (status.azureKeeps) in the
// reconcile flow (doc.go), as named steps: write starts a record
// (startRecord), record and settle fill it once Azure has finished (learn),
// plan consults it at the paths the comparison reports (consult), and settle
// drops the entries no difference needs any more (prune). The pure parts
// (digests, entries) are in answers.go, the projection and the paths in
// reconcilers/comparison.

// EventKeptByAzure is the event sent when the set of paths Azure keeps its own
// way changes.
const EventKeptByAzure = "KeptByAzure"

// answersFor is what deciding and recording need for obj: the digest key (the
// write-only digest's, writeOnlyKey), the bodies, the kind's open sets and
// write-only paths, and the values Hooks.Resolve read (secrets).
func (r *Reconciler) answersFor(ctx context.Context, obj azurev1alpha1.Resource, secrets []string, desired, actual map[string]any) answers {
	facts, hooks := r.Kind.Facts(), r.Kind.Hooks()
	var refs []Reference
	if hooks.References != nil {
		refs = hooks.References(obj)
	}
	open := make(map[string]bool, len(facts.OpenSets))
	for _, p := range facts.OpenSets {
		open[p] = true
	}
	return answers{
		key:     writeOnlyKey(ctx, r.namespaceReader(obj.GetNamespace()), obj, refs),
		desired: desired, actual: actual, open: open, writeOnly: facts.WriteOnly, secrets: secrets,
		decided: map[string]bool{},
	}
}

// usableRecord is obj's record if it was made with the kind's api-version and
// the digest scheme in use, else nil (another version, or another scheme,
// answers differently).
func (r *Reconciler) usableRecord(obj azurev1alpha1.Resource) *azurev1alpha1.AzureKeeps {
	k := obj.AzureStatus().AzureKeeps
	if k == nil || k.APIVersion != r.Kind.Facts().APIVersion {
		return nil
	}
	if k.Written != "" && !strings.HasPrefix(k.Written, answerScheme) {
		return nil
	}
	for _, e := range k.Paths {
		if !strings.HasPrefix(e.Sent, answerScheme) {
			return nil
		}
	}
	return k
}

// startRecord is write's part of the record, once Azure accepted the PUT: the
// digest of the body written, and no answer yet (an earlier write's is
// dropped: a resource created again, or a new body, is answered afresh).
func (r *Reconciler) startRecord(ctx context.Context, obj azurev1alpha1.Resource, c change) {
	a := r.answersFor(ctx, obj, c.secrets, c.desired, nil)
	obj.AzureStatus().AzureKeeps = &azurev1alpha1.AzureKeeps{APIVersion: r.Kind.Facts().APIVersion, Written: a.digest(comparison.Body, c.desired)}
}

// record is the step before plan that learns Azure's answer to the last write
// from a GET (actual), when settle could not: the write's operation had not
// finished. A record of another api-version or digest scheme is dropped here.
// It never reads a listing's item (thinner than a GET: it would record paths
// a listing leaves out).
func (r *Reconciler) record(ctx context.Context, obj azurev1alpha1.Resource, b built, actual map[string]any) {
	st := obj.AzureStatus()
	if st.AzureKeeps == nil {
		return
	}
	k := r.usableRecord(obj)
	if k == nil {
		st.AzureKeeps = nil
		return
	}
	if k.Written == "" || actual == nil || !terminalState(provisioningState(actual)) {
		return
	}
	// The body as plan completes it (tags, the owner marker), as written.
	desired := cloneJSON(b.desired).(map[string]any)
	r.applyTags(obj, desired)
	r.learn(ctx, obj, b.secrets, desired, actual, keptNames(k))
}

// learn records Azure's answer (actual, its provisioningState terminal) to the
// body written: when desired is still that body, one entry per path where
// the comparison finds actual different (answers.record); otherwise (the
// spec changed since) nothing, and plan compares afresh. An event says when
// the set of kept paths changed from before.
func (r *Reconciler) learn(ctx context.Context, obj azurev1alpha1.Resource, secrets []string, desired, actual map[string]any, before []string) {
	st := obj.AzureStatus()
	k := st.AzureKeeps
	if k == nil || k.Written == "" {
		return
	}
	if ps := provisioningState(actual); ps != "" && !strings.EqualFold(ps, "Succeeded") {
		// Failed or canceled: not Azure's answer to the body, which is written
		// again as before.
		forgetWrite(obj)
		return
	}
	a := r.answersFor(ctx, obj, secrets, desired, actual)
	if a.digest(comparison.Body, desired) == k.Written {
		k.Paths = a.record(comparison.Differences(desired, actual, comparisonRules(r.Kind.Facts(), r.Kind.Hooks())))
		r.keptChanged(obj, a, before, k.Paths)
	}
	k.Written = ""
	if len(k.Paths) == 0 {
		st.AzureKeeps = nil
	}
}

// prune is settle's part of the record when nothing was written: an entry
// that no longer covers a path the comparison reports (the spec, or Azure,
// now has the same value there) is dropped, so status counts only the paths
// Azure keeps now. Only after a GET: a listing may lack what a GET has.
func (r *Reconciler) prune(ctx context.Context, obj azurev1alpha1.Resource, c change, actual map[string]any) {
	st := obj.AzureStatus()
	k := st.AzureKeeps
	if k == nil || k.Written != "" {
		return
	}
	var still []azurev1alpha1.KeptPath
	for _, e := range k.Paths {
		if slices.ContainsFunc(c.kept, func(d comparison.Difference) bool { return comparison.Covers(e.Path, d.Path) }) {
			still = append(still, e)
		}
	}
	if len(still) == len(k.Paths) {
		return
	}
	before := keptNames(k)
	k.Paths = still
	r.keptChanged(obj, r.answersFor(ctx, obj, c.secrets, c.desired, actual), before, still)
	if len(still) == 0 {
		st.AzureKeeps = nil
	}
}

// forgetWrite drops the digest of a write whose operation failed: its answer
// is not recorded.
func forgetWrite(obj azurev1alpha1.Resource) {
	st := obj.AzureStatus()
	if k := st.AzureKeeps; k != nil {
		k.Written = ""
		if len(k.Paths) == 0 {
			st.AzureKeeps = nil
		}
	}
}

// consult is plan asking the record about the paths the comparison reports as
// different (the design's §1.4): a path whose entry was made for the desired
// value there now, and where Azure still answers what it answered to the
// write, is in sync (kept); any other is a difference. It returns the first
// difference left ("" when every one is kept) and the kept ones. Without a
// usable record it returns diff, the comparison's.
func (r *Reconciler) consult(ctx context.Context, obj azurev1alpha1.Resource, secrets []string, desired, actual map[string]any, diff string) (string, []comparison.Difference) {
	k := r.usableRecord(obj)
	if k == nil || len(k.Paths) == 0 {
		return diff, nil
	}
	diffs := comparison.Differences(desired, actual, comparisonRules(r.Kind.Facts(), r.Kind.Hooks()))
	if len(diffs) == 0 {
		return diff, nil
	}
	a := r.answersFor(ctx, obj, secrets, desired, actual)
	first := ""
	var kept []comparison.Difference
	for _, d := range diffs {
		switch {
		case a.keeps(k.Paths, d.Path):
			kept = append(kept, d)
		case first == "":
			first = d.Path
		}
	}
	return first, kept
}

// keptChanged sends EventKeptByAzure when the paths Azure keeps are not those
// of before (the record before the write): once per change, and, the record
// being in status, once across restarts.
func (r *Reconciler) keptChanged(obj azurev1alpha1.Resource, a answers, before []string, now []azurev1alpha1.KeptPath) {
	names := keptNames(&azurev1alpha1.AzureKeeps{Paths: now})
	if slices.Equal(slices.Sorted(slices.Values(before)), names) {
		return
	}
	if len(now) == 0 {
		r.event(obj, corev1.EventTypeNormal, EventKeptByAzure, "Azure now answers the spec as written at every path it kept its own way")
		return
	}
	const shown = 5
	parts := make([]string, 0, shown)
	for _, e := range now[:min(len(now), shown)] {
		parts = append(parts, fmt.Sprintf("%s (%s; the spec says %s)", e.Path, keptAnswer(e, a), a.specValue(e.Path)))
	}
	msg := "Azure keeps " + strings.Join(parts, ", ")
	if len(now) > shown {
		msg += fmt.Sprintf(" and %d more path(s) (status.azureKeeps)", len(now)-shown)
	}
	r.event(obj, corev1.EventTypeNormal, EventKeptByAzure, msg+": written again only when the spec changes there")
}

// keptAnswer is how a message shows Azure's answer in an entry.
func keptAnswer(e azurev1alpha1.KeptPath, a answers) string {
	switch {
	case e.Answered == "":
		return "Azure returns nothing there"
	case e.Value == "" || a.secret(e.Path):
		return masked
	}
	return e.Value
}

// specValue is how a message shows the spec's value at path.
func (a answers) specValue(path string) string {
	if a.secret(path) {
		return masked
	}
	v, ok := comparison.ValueAt(a.desired, path)
	if !ok {
		return absent
	}
	return keptValue(v)
}

// keptShown renders kept differences for a Plan: both values, but neither
// where one may be secret.
func (a answers) keptShown(kept []comparison.Difference) []azurev1alpha1.Difference {
	out := make([]azurev1alpha1.Difference, 0, len(kept))
	for _, d := range kept {
		if a.secret(d.Path) {
			d.Desired, d.Actual = masked, masked
		}
		out = append(out, azurev1alpha1.Difference{Path: cut(d.Path), Desired: value(d.Desired), Actual: value(d.Actual)})
	}
	return out
}

// keptNote is what Ready's and InSync's messages add about the record.
func keptNote(obj azurev1alpha1.Resource) string {
	k := obj.AzureStatus().AzureKeeps
	if k == nil || len(k.Paths) == 0 {
		return ""
	}
	return fmt.Sprintf("; Azure keeps %d path(s) its own way (status.azureKeeps)", len(k.Paths))
}

// withoutKept is diffs less the paths in kept.
func withoutKept(diffs, kept []comparison.Difference) []comparison.Difference {
	if len(kept) == 0 {
		return diffs
	}
	return slices.DeleteFunc(diffs, func(d comparison.Difference) bool {
		return slices.ContainsFunc(kept, func(k comparison.Difference) bool { return k.Path == d.Path })
	})
}

// stepRecord records Azure's answer to a write made earlier, if not recorded
// yet, from a GET (never from a listing; in modePreview, on the copy).
func (r *Reconciler) stepRecord(ctx context.Context, x *run) error {
	if !x.from.at.IsZero() || (x.mode != modeManage && x.actual == nil) {
		return nil
	}
	r.record(ctx, x.obj, x.body, x.actual)
	return nil
}
