package reconcilers

import (
	"context"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file is the plan step: what the spec asks of Azure, and where Azure
// differs from it (the comparison itself is reconcilers/comparison; the
// record of Azure's answers, keeps.go).

// stepPlan compares the desired body with Azure's resource. Planned on a
// listing, a difference is read again by GET first.
func (r *Reconciler) stepPlan(ctx context.Context, x *run) error {
	c, err := r.plan(ctx, x.obj, x.body, x.id, x.actual, x.createdFor)
	if !x.from.at.IsZero() && (err != nil || c.diff != "") {
		return errReadAgain
	}
	if err != nil {
		return err
	}
	c.listed = x.from
	x.change = c
	return nil
}

// change is what the spec asks of Azure, and where Azure differs.
type change struct {
	id      string
	desired map[string]any
	// specTags are the tag names the spec manages, tagged whether the kind
	// has tags; dropped are those to remove (names that left the spec).
	specTags, dropped []string
	tagged            bool
	// woHash is the digest of the write-only values (writeonly.go).
	woHash string
	// diff is the first path where Azure differs, "(absent)" when it has no
	// resource, "" when it matches.
	diff string
	// listed is the listing Azure's state was read from (zero: a GET).
	listed listed
	// secrets are the values Hooks.Resolve read (never shown, digested with a key).
	secrets []string
	// kept are the paths where Azure differs from desired as it answered the
	// last write (status.azureKeeps): in sync, not in diff. keptBefore are
	// the record's paths before this reconcile writes (keeps.go).
	kept       []comparison.Difference
	keptBefore []string
}

// built is the desired body with what it was built from.
type built struct {
	desired map[string]any
	// secrets are the values Hooks.Resolve read (Secrets', other objects' IDs),
	// which status.azureKeeps never shows.
	secrets []string
}

// plan compares the desired body with Azure's (reconcilers/comparison).
func (r *Reconciler) plan(ctx context.Context, obj azurev1alpha1.Resource, b built, id string, actual map[string]any, createdFor string) (change, error) {
	facts, hooks := r.Kind.Facts(), r.Kind.Hooks()
	desired := b.desired
	c := change{id: id, desired: desired, secrets: b.secrets, keptBefore: keptNames(obj.AzureStatus().AzureKeeps)}
	c.specTags, c.dropped, c.tagged = r.applyTags(obj, desired)
	if createdFor != "" && c.tagged {
		// Good for the first time only: a later object of the same name
		// must adopt.
		c.dropped = append(c.dropped, TagCreatedFor)
	}
	digested := digestedPaths(facts)
	if len(digested) > 0 { // only kinds with write-only or unanswered values read the key's Secrets
		var refs []Reference
		if hooks.References != nil {
			refs = hooks.References(obj)
		}
		c.woHash = writeOnlyHash(writeOnlyKey(ctx, r.namespaceReader(obj.GetNamespace()), obj, refs), desired, digested)
	}
	c.diff = "(absent)"
	if actual != nil {
		c.diff = comparison.Drift(desired, actual, comparisonRules(facts, hooks))
		if c.diff != "" {
			// Only where the comparison finds a difference: Azure's known
			// answer to this spec is no difference (keeps.go).
			c.diff, c.kept = r.consult(ctx, obj, b.secrets, desired, actual, c.diff)
		}
		if c.diff == "" {
			c.diff = droppedTag(actual, c.dropped)
		}
		if c.diff == "" && c.woHash != "" && c.woHash != obj.AzureStatus().WriteOnlyHash {
			// ARM never returns write-only values: a digest other than the one
			// last written (a rotated password, or none known) is the drift.
			c.diff = writeOnlyPaths(desired, digested) + " (write-only or not answered, not the value last written)"
		}
	}
	return c, nil
}
