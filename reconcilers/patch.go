package reconcilers

import (
	"bytes"
	"context"
	"encoding/json"

	jsonpatch "github.com/evanphx/json-patch/v5"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// patcher writes what a reconcile changes of its object, as cluster-api's
// and Flux's patch helpers do: metadata (the finalizer, owner references)
// and status, each with a JSON merge patch of what changed since it was last
// written (or read), and no request at all when nothing did.
//
// A reconcile changes the object in memory and Reconcile writes it all once,
// at the end (patch). A step whose write must be in the API server before
// the next step acts writes at once: the finalizer before anything is
// written to Azure (addFinalizer), an owner reference (ensureOwnerReference),
// status.id before the PUT that creates the resource (patchStatus), the
// finalizer's removal once nothing is left to do in Azure (removeFinalizer).
//
// A write's answer is not read back into the object: the reconcile goes on
// with the spec it read (a newer one reconciles again on its own event), and
// only takes the new resourceVersion, which lastWrites records.
type patcher struct {
	client client.Client
	writes *lastWrites
	// before is the object as the API server has it, as far as this
	// reconcile knows: as read, then as last written.
	before azurev1alpha1.Resource
}

func (r *Reconciler) newPatcher(obj azurev1alpha1.Resource) *patcher {
	return &patcher{client: r.Client, writes: &r.writes, before: obj.DeepCopyObject().(azurev1alpha1.Resource)}
}

// patch writes obj's metadata, then its status, each only if it changed. An
// object gone meanwhile is no error. A failed metadata write does not keep
// the status from being written; its error is returned first.
func (p *patcher) patch(ctx context.Context, obj azurev1alpha1.Resource) error {
	merr := client.IgnoreNotFound(p.patchMetadata(ctx, obj))
	serr := p.patchStatus(ctx, obj)
	if merr != nil {
		return merr
	}
	return serr
}

// addFinalizer adds the finalizer and writes it at once.
func (p *patcher) addFinalizer(ctx context.Context, obj azurev1alpha1.Resource) error {
	if !controllerutil.AddFinalizer(obj, Finalizer) {
		return nil
	}
	return p.patchMetadata(ctx, obj)
}

// removeFinalizer removes the finalizer and writes it at once; an object
// gone meanwhile is no error.
func (p *patcher) removeFinalizer(ctx context.Context, obj azurev1alpha1.Resource) error {
	if !controllerutil.RemoveFinalizer(obj, Finalizer) {
		return nil
	}
	return client.IgnoreNotFound(p.patchMetadata(ctx, obj))
}

// patchMetadata writes obj's finalizers and owner references now if they
// changed.
func (p *patcher) patchMetadata(ctx context.Context, obj azurev1alpha1.Resource) error {
	data, err := metadataPatch(p.before, obj)
	if data == nil || err != nil {
		return err
	}
	sent := obj.DeepCopyObject().(azurev1alpha1.Resource)
	if err := p.client.Patch(ctx, sent, client.RawPatch(types.MergePatchType, data)); err != nil {
		return err
	}
	p.wrote(obj, sent)
	p.before.SetFinalizers(obj.GetFinalizers())
	p.before.SetOwnerReferences(obj.GetOwnerReferences())
	return nil
}

// patchStatus writes obj's status now if it changed (the whole stanza,
// kind-specific outputs included). An object gone meanwhile is no error.
func (p *patcher) patchStatus(ctx context.Context, obj azurev1alpha1.Resource) error {
	data, err := statusPatch(p.before, obj)
	if data == nil || err != nil {
		return err
	}
	sent := obj.DeepCopyObject().(azurev1alpha1.Resource)
	if err := p.client.Status().Patch(ctx, sent, client.RawPatch(types.MergePatchType, data)); err != nil {
		return client.IgnoreNotFound(err)
	}
	p.wrote(obj, sent)
	// The status as written, with the metadata as last written (not
	// necessarily obj's: a metadata change not yet written stays pending).
	next := obj.DeepCopyObject().(azurev1alpha1.Resource)
	next.SetFinalizers(p.before.GetFinalizers())
	next.SetOwnerReferences(p.before.GetOwnerReferences())
	p.before = next
	return nil
}

// wrote takes the resourceVersion the API server answered with.
func (p *patcher) wrote(obj, answer azurev1alpha1.Resource) {
	obj.SetResourceVersion(answer.GetResourceVersion())
	p.before.SetResourceVersion(answer.GetResourceVersion())
	p.writes.record(obj)
}

// objectMetadata is the part of metadata the reconciler writes.
type objectMetadata struct {
	Metadata struct {
		Finalizers      []string                `json:"finalizers,omitempty"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
}

// metadataPatch is the merge patch of the finalizers and owner references
// from before to after, or nil when they are the same.
func metadataPatch(before, after client.Object) ([]byte, error) {
	part := func(obj client.Object) (map[string]any, error) {
		var m objectMetadata
		m.Metadata.Finalizers = obj.GetFinalizers()
		m.Metadata.OwnerReferences = obj.GetOwnerReferences()
		return decoded(m)
	}
	return mergePatch(before, after, part)
}

// statusPatch is the merge patch of the status stanza from before to after
// (kind-specific outputs beside the common part), or nil when it is the
// same.
func statusPatch(before, after client.Object) ([]byte, error) {
	part := func(obj client.Object) (map[string]any, error) {
		m, err := decoded(obj)
		if s, ok := m["status"]; ok && err == nil {
			return map[string]any{"status": s}, nil
		}
		return map[string]any{}, err
	}
	return mergePatch(before, after, part)
}

// mergePatch is the JSON merge patch (RFC 7386) that turns part of before
// into part of after, or nil when they are the same.
func mergePatch(before, after client.Object, part func(client.Object) (map[string]any, error)) ([]byte, error) {
	b, err := part(before)
	if err != nil {
		return nil, err
	}
	a, err := part(after)
	if err != nil {
		return nil, err
	}
	d, err := mergePatchOf(b, a)
	if err != nil || string(d) == "{}" {
		return nil, err
	}
	return d, nil
}

// mergePatchOf is the merge patch from before to after, by the library
// controller-runtime's MergeFrom uses: changed and new keys with their new
// values (objects patched key by key, arrays replaced whole), removed keys as
// null; {} when they are the same.
func mergePatchOf(before, after map[string]any) ([]byte, error) {
	b, err := json.Marshal(before)
	if err != nil {
		return nil, err
	}
	a, err := json.Marshal(after)
	if err != nil {
		return nil, err
	}
	return jsonpatch.CreateMergePatch(b, a)
}

// decoded is v's JSON as maps, numbers kept exact.
func decoded(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	return m, dec.Decode(&m)
}
