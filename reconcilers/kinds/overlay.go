package kinds

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// Overlays: what Azure does for a generated kind that its model cannot say, written by
// hand beside the generated adapter (as ASO keeps customizations/ beside its generated
// code). A generated adapter is never edited; an overlay names its kind by GroupKind and
// amends the Facts and Hooks kindgen wrote, and the result is checked like any kind when it
// is registered (reconcilers.NewRegistry runs checkKind on it). Each overlay lives in a file
// of its own, <kind>_overlay.go, and registers itself with a package-level
//
//	var _ = overlay(<group>v1alpha1.<Kind>GroupKind, Overlay{...})
//
// Facts the generator can read from Azure's models and specs (write-only paths, sets,
// normalisations of answers ...) belong in api/kinds.yaml, not here: an overlay is for
// behaviour, with the public source of what Azure does in its comment.

// Overlay amends one generated kind. Any field may be nil.
type Overlay struct {
	// Facts changes the facts kindgen wrote (it is given a copy).
	Facts func(*reconcilers.Facts)
	// Hooks sets hooks the generator has no model for (Equivalent, Verify, ARMID ...)
	// or wraps a generated one (it is given a copy).
	Hooks func(*reconcilers.Hooks)
	// Body amends the PUT body the generated Desired built from the spec, for what Azure
	// must be sent though the spec leaves it out (an empty list that makes additions in
	// the portal drift).
	Body func(obj azurev1alpha1.Resource, body map[string]any)
	// Desired replaces the generated Desired (Body then amends its result), where the body
	// is not the spec's: a reference held in a type written by hand (api/kinds.yaml,
	// referenceType), whose ARM value is behaviour (a built-in role's ID by its name). It
	// may call the generated adapter's own Desired and complete its body.
	Desired func(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error)
}

// generatedKind is a kind kindgen writes, with its GroupKind (zz_generated_all.go).
type generatedKind struct {
	gk   schema.GroupKind
	kind reconcilers.Kind
}

// overlays are the registered overlays by the GroupKind they amend.
var overlays = map[schema.GroupKind]Overlay{}

// overlay registers o as the overlay of the generated kind gk; a second overlay of the
// same kind panics at start (one file per kind).
func overlay(gk schema.GroupKind, o Overlay) struct{} {
	if _, dup := overlays[gk]; dup {
		panic(fmt.Sprintf("kinds: two overlays of %s", gk))
	}
	overlays[gk] = o
	return struct{}{}
}

// Generated is every kind kindgen writes, parents before children, each with its overlay
// when it has one.
func Generated() []reconcilers.Kind {
	out := make([]reconcilers.Kind, 0, len(generated))
	for _, g := range generated {
		if o, ok := overlays[g.gk]; ok {
			out = append(out, &overlaid{Kind: g.kind, overlay: o})
			continue
		}
		out = append(out, g.kind)
	}
	return out
}

// checkOverlays refuses an overlay whose GroupKind is no generated kind (a kind renamed or
// removed from api/kinds.yaml, a hand-written kind, which has hooks of its own).
func checkOverlays() error {
	known := map[schema.GroupKind]bool{}
	for _, g := range generated {
		known[g.gk] = true
	}
	var stray []string
	for gk := range overlays {
		if !known[gk] {
			stray = append(stray, gk.String())
		}
	}
	if len(stray) > 0 {
		sort.Strings(stray)
		return fmt.Errorf("overlays of kinds kindgen does not write: %v", stray)
	}
	var lacking []string
	for _, g := range generated {
		if _, needs := g.kind.(interface{ needsOverlayDesired() }); needs && overlays[g.gk].Desired == nil {
			lacking = append(lacking, g.gk.String())
		}
	}
	if len(lacking) > 0 {
		sort.Strings(lacking)
		return fmt.Errorf("generated kinds whose body needs their overlay's Desired (api/kinds.yaml, referenceType), without one: %v", lacking)
	}
	return nil
}

// overlaid is a generated kind with its overlay applied. It is used by pointer, so that it
// stays comparable (the registry keys kinds by value).
type overlaid struct {
	reconcilers.Kind
	overlay Overlay
}

func (k *overlaid) Facts() reconcilers.Facts {
	f := k.Kind.Facts()
	if k.overlay.Facts != nil {
		k.overlay.Facts(&f)
	}
	return f
}

func (k *overlaid) Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	desired := k.Kind.Desired
	if k.overlay.Desired != nil {
		desired = k.overlay.Desired
	}
	body, err := desired(obj, resolved)
	if err == nil && k.overlay.Body != nil {
		k.overlay.Body(obj, body)
	}
	return body, err
}

func (k *overlaid) Hooks() reconcilers.Hooks {
	h := k.Kind.Hooks()
	if k.overlay.Hooks != nil {
		k.overlay.Hooks(&h)
	}
	return h
}
