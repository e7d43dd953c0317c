package reconcilers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/internal/ownermarker"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// Tags aztenant reads and writes on Azure resources of kinds with tags.
const (
	// TagOwner marks the aztenant object that created or adopted a resource
	// (ownermarker.Owner).
	TagOwner = ownermarker.TagOwner
	// TagOnboardedBy names the Tenant whose onboarding created a resource
	// (the tag tenancy/onboarding writes): it belongs to the platform, and no
	// tenant object adopts, writes or deletes it. tagOnboardedByLegacy, the
	// name earlier versions wrote, is recognised as well.
	TagOnboardedBy       = "aztenant.io-onboarded-by"
	tagOnboardedByLegacy = "aztenant.io/onboarded-by"
	// TagCreatedFor: onboarding created the resource for the object whose
	// marker it holds (ownermarker.TagCreatedFor).
	TagCreatedFor = ownermarker.TagCreatedFor
)

// EventCreatedByOnboarding: the object's resource was created for it by the
// Tenant's onboarding (TagCreatedFor), and the object manages it as its own.
const EventCreatedByOnboarding = "CreatedByOnboarding"

// AnnotationRelease "true" on an owner lets go of its Azure resource: the
// object stops writing to it (Ready Unknown, reason Released), another object
// may adopt it, and deleting the object leaves it in Azure.
const AnnotationRelease = "aztenant.io/release"

// OwnerMarker is the value of TagOwner for an object (ownermarker.Owner).
func OwnerMarker(clusterID, namespace string, gk schema.GroupKind, name string) string {
	return ownermarker.Owner(clusterID, namespace, gk, name)
}

func (r *Reconciler) marker(obj azurev1alpha1.Resource) string {
	return OwnerMarker(r.ClusterID, obj.GetNamespace(), r.Registry.groupKindOf(r.Kind), obj.GetName())
}

// released reports the owner's release annotation.
func released(obj azurev1alpha1.Resource) bool {
	return obj.GetAnnotations()[AnnotationRelease] == "true"
}

// tagsOf reads the tags of an ARM body.
func tagsOf(body map[string]any) map[string]string {
	raw, _ := comparison.LookupFold(body, "tags").(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// tagFold returns the value of tag k (tag names are case-insensitive in Azure).
func tagFold(tags map[string]string, k string) string {
	if v, ok := tags[k]; ok {
		return v
	}
	for tk, v := range tags {
		if strings.EqualFold(tk, k) {
			return v
		}
	}
	return ""
}

// ownerOf says who owns the existing Azure resource id (its GET body actual)
// when it is not obj: "" when obj may manage it. A resource onboarding created
// belongs to the platform. A marker of another object of this cluster counts
// while that object exists (with status.id on the resource) and has not
// released it; a marker whose object is gone (deleted, or detached) is free.
// With strict (before a deletion), any marker but obj's own counts: the
// object deletes only what it marked itself, or what nobody marked.
func (r *Reconciler) ownerOf(ctx context.Context, obj azurev1alpha1.Resource, id string, actual map[string]any, strict bool) (string, error) {
	tags := tagsOf(actual)
	for _, k := range []string{TagOnboardedBy, tagOnboardedByLegacy} {
		if t := tagFold(tags, k); t != "" {
			return fmt.Sprintf("onboarding of Tenant %q (tag %s): it belongs to the platform", t, k), nil
		}
	}
	m := tagFold(tags, TagOwner)
	mine := r.marker(obj)
	if m == "" || m == mine {
		return "", nil
	}
	cluster, _, _ := strings.Cut(m, ".")
	if myCluster, _, _ := strings.Cut(mine, "."); cluster != myCluster {
		return fmt.Sprintf("an aztenant object of another cluster (tag %s=%s); once that object no longer manages it, remove the tag in Azure", TagOwner, m), nil
	}
	list, err := r.Registry.NewList(r.Kind)
	if err != nil {
		return "", err
	}
	if err := r.Client.List(ctx, list); err != nil {
		return "", fmt.Errorf("find the owner of %s: %w", id, err)
	}
	kind := r.Registry.groupKindOf(r.Kind).Kind
	who := ""
	_ = meta.EachListItem(list, func(item runtime.Object) error {
		o := item.(azurev1alpha1.Resource)
		if who != "" || o.GetUID() == obj.GetUID() || !strings.EqualFold(o.AzureStatus().ID, id) || r.marker(o) != m {
			return nil
		}
		switch {
		case released(o) && !strict:
			who = "-" // released: free to take
		case o.GetNamespace() == obj.GetNamespace():
			who = fmt.Sprintf("%s %q of this namespace; it can let go with the annotation %s: \"true\" or by being deleted with %s: %s",
				kind, o.GetName(), AnnotationRelease, AnnotationReconcilePolicy, PolicyDetachOnDelete)
		default:
			// Another namespace's object is not named to this one.
			who = fmt.Sprintf("another aztenant %s (of another namespace); its owner can let go with the annotation %s: \"true\" or by deleting it with %s: %s",
				kind, AnnotationRelease, AnnotationReconcilePolicy, PolicyDetachOnDelete)
		}
		return nil
	})
	switch {
	case who == "-":
		return "", nil
	case who == "" && strict:
		return fmt.Sprintf("another aztenant object (tag %s=%s), which no longer exists", TagOwner, m), nil
	}
	return who, nil
}

// applyTags adds the owner marker to the desired tags of a kind with tags
// and returns the tag names the spec manages and those it managed before but
// no longer does (to remove from Azure). Other tags found in Azure are not
// the spec's: they are kept (see mergeTags) and never count as drift.
func (r *Reconciler) applyTags(obj azurev1alpha1.Resource, desired map[string]any) (spec, dropped []string, ok bool) {
	tags, ok := desired["tags"].(map[string]any)
	if !ok {
		return nil, nil, false
	}
	for k := range tags {
		spec = append(spec, k)
	}
	slices.Sort(spec)
	for _, k := range obj.AzureStatus().ManagedTags {
		if !slices.ContainsFunc(spec, func(s string) bool { return strings.EqualFold(s, k) }) {
			dropped = append(dropped, k)
		}
	}
	// The marker's name in any other casing is the same tag in Azure.
	for k := range tags {
		if strings.EqualFold(k, TagOwner) {
			delete(tags, k)
		}
	}
	tags[TagOwner] = r.marker(obj)
	return spec, dropped, true
}

// droppedTag returns the first tag of dropped still present in actual, as a
// drift path, or "".
func droppedTag(actual map[string]any, dropped []string) string {
	tags := tagsOf(actual)
	for _, k := range dropped {
		for tk := range tags {
			if strings.EqualFold(tk, k) {
				return "tags." + tk + " (removed from the spec)"
			}
		}
	}
	return ""
}

// mergeTags returns desired with the tags of actual that the spec does not
// manage (set by people, Azure Policy or other tools) added back, so a PUT,
// which replaces all tags, keeps them; tags in dropped are left out.
func mergeTags(desired, actual map[string]any, dropped []string) map[string]any {
	want, ok := desired["tags"].(map[string]any)
	if !ok || actual == nil {
		return desired
	}
	merged := make(map[string]any, len(want))
	for k, v := range tagsOf(actual) {
		if slices.ContainsFunc(dropped, func(d string) bool { return strings.EqualFold(d, k) }) {
			continue
		}
		if _, mine := lookupKeyFold(want, k); mine {
			continue
		}
		merged[k] = v
	}
	for k, v := range want {
		merged[k] = v
	}
	out := make(map[string]any, len(desired))
	for k, v := range desired {
		out[k] = v
	}
	out["tags"] = merged
	return out
}

// lookupKeyFold reports whether m has a key equal to k but for case.
func lookupKeyFold(m map[string]any, k string) (string, bool) {
	for mk := range m {
		if strings.EqualFold(mk, k) {
			return mk, true
		}
	}
	return "", false
}

// stepClaim decides whether the resource Azure has is the object's to act on
// (a resource another object or onboarding owns is not, in any mode), and,
// in modeManage, takes it: created for it by onboarding, made by Azure with
// its parent, or adopted.
func (r *Reconciler) stepClaim(ctx context.Context, x *run) error {
	obj, st := x.obj, x.obj.AzureStatus()
	if x.actual == nil {
		return nil
	}
	who, err := r.ownerOf(ctx, obj, x.id, x.actual, x.mode == modeDelete)
	if err != nil {
		return x.listedOr(newOutcome(ReasonGuardFailed, fmt.Sprintf("could not check who owns %s: %v", x.id, err)))
	}
	if who != "" {
		switch x.mode {
		case modeObserve:
			x.otherOwner = who // shown; manage would not write it
			return nil
		case modeDelete:
			return r.detachOwned(ctx, x, who)
		case modePreview:
			return newOutcome(ReasonOwnedByAnother, fmt.Sprintf("%s is owned by %s: it would be neither adopted nor written", x.id, who))
		}
		// The owner letting go produces no event here: look again later.
		return x.listedOr(newOutcome(ReasonOwnedByAnother, fmt.Sprintf("%s is owned by %s. This object does not adopt it or write to it, and deleting this object leaves it in Azure", x.id, who)))
	}
	switch {
	case x.mode == modeManage:
		createdFor, err := r.claim(ctx, obj, x.id, x.actual)
		x.createdFor = createdFor
		return x.listedOr(err)
	case x.mode == modeObserve && st.ID == "":
		// Not this object's yet: manage later writes these differences, as
		// if adopted (it did not create it, so deleting it then leaves it
		// in Azure unless told otherwise).
		st.ID, st.Adopted = x.id, true
	case x.mode == modePreview && st.ID == "" && x.policy != PolicyObserve && !r.Kind.Facts().WithParent && obj.GetAnnotations()[AnnotationAdopt] != "true":
		return newOutcome(ReasonAlreadyExists, fmt.Sprintf("%s already exists in Azure and is not this object's; annotate it %s: \"true\" to adopt it", x.id, AnnotationAdopt))
	}
	return nil
}

// claim takes the resource Azure has (actual), which no one else owns: yes
// when obj created it (status.id), when onboarding created it for obj, or
// once it is adopted. It returns the resource's TagCreatedFor.
func (r *Reconciler) claim(ctx context.Context, obj azurev1alpha1.Resource, id string, actual map[string]any) (string, error) {
	st := obj.AzureStatus()
	createdFor := tagFold(tagsOf(actual), TagCreatedFor) // tagsOf(nil) is empty
	if createdFor != "" && st.ID == "" && createdFor == r.marker(obj) {
		// Onboarding created it for this object with the platform identity
		// (the namespace's identity may not create resource groups): it is
		// this object's as if it had created it, so no adopt, and deleting
		// the object deletes it.
		st.ID = id
		r.event(obj, corev1.EventTypeNormal, EventCreatedByOnboarding, fmt.Sprintf("%s was created for this object by the Tenant's onboarding, with the platform identity", id))
		r.decide(ctx, obj, DecisionCreate, "by", "onboarding")
	}
	if actual != nil && st.ID == "" && r.Kind.Facts().WithParent {
		// Azure made it with the parent; there is no other to create.
		st.ID = id
		r.decide(ctx, obj, DecisionAdopt, "why", "created by Azure with its parent")
	}
	if actual != nil && st.ID == "" {
		if obj.GetAnnotations()[AnnotationAdopt] != "true" {
			return "", newOutcome(ReasonAlreadyExists, fmt.Sprintf("%s already exists in Azure and was not created by this object; annotate it %s: \"true\" to adopt it", id, AnnotationAdopt))
		}
		st.Adopted = true
		st.ID = id
		r.event(obj, corev1.EventTypeNormal, "Adopted", "Adopted existing Azure resource "+id)
		r.decide(ctx, obj, DecisionAdopt)
	}
	return createdFor, nil
}
