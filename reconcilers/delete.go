package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// OwnerIndex is the field index of a kind's objects by spec.owner.name: a
// deletion finds its children with it (keptChildren). Whoever runs the
// kind's controller registers it with OwnerName (package controllers).
const OwnerIndex = "aztenant.spec.owner.name"

// OwnerName is the value of OwnerIndex for o: the name of the owner it
// names, if any.
func OwnerName(o client.Object) []string {
	if res, ok := o.(azurev1alpha1.Resource); ok {
		if ref := res.Owner(); ref != nil && ref.Name != "" {
			return []string{ref.Name}
		}
	}
	return nil
}

// Reasons of the events a deletion records.
const (
	// EventDeleted: the object's resource was deleted in Azure (or was
	// already gone there).
	EventDeleted = "Deleted"
	// EventDeletedWithOwner: the object was deleted with its owner, whose
	// Azure resource holds its own: ARM deletes them together (or the owner
	// leaves both in Azure), so nothing was called for this object.
	EventDeletedWithOwner = "DeletedWithOwner"
	// EventDetached: the resource is left in Azure (a reconcile policy, a
	// release, an owner leaving it there, another owner, or children that
	// stay).
	EventDetached = "Detached"
)

// stepDeletion is the first step of modeDelete. What happens in Azure is decided
// once, by the topmost object being deleted, the way ARM deletes a resource
// with everything inside it:
//
//   - An object deleted with or after its owner (its dependent: Kubernetes'
//     garbage collector deletes dependents once the owner is gone, and a
//     namespace deletion deletes all at once) calls nothing in Azure: its
//     resource is inside the owner's, which the owner deletes or leaves in
//     Azure (goesWithOwner).
//   - Otherwise, with policy manage, the object deletes its resource until
//     ARM reports it gone, then lets go. It does not wait for its children:
//     ARM deletes them with it (everything in a resource group, a container
//     with its storage account, credentials with their identity), and their
//     objects go afterwards without a call. Children that stay (orphaned,
//     propagationPolicy Orphan) would lose their resources: then the object
//     leaves its own in Azure instead (keptChildren).
//   - With detach-on-delete or skip, or released, the resource is left alone.
func (r *Reconciler) stepDeletion(ctx context.Context, x *run) error {
	obj, policy, p := x.obj, x.policy, x.patch
	st := obj.AzureStatus()
	if policy != PolicyManage || st.ID == "" || released(obj) {
		if st.ID != "" && controllerutil.ContainsFinalizer(obj, Finalizer) {
			why := "reconcile policy " + string(policy)
			if released(obj) {
				why = AnnotationRelease + ` is "true"`
			}
			r.event(obj, corev1.EventTypeNormal, EventDetached, fmt.Sprintf("%s is left in Azure (%s)", st.ID, why))
			r.decide(ctx, obj, DecisionDetach, "why", why)
		}
		return r.letGo(ctx, obj, p)
	}
	// Deleting a CRD deletes every object of its kind (an uninstall, an
	// upgrade from a chart that carried the CRDs without keep): nobody asked
	// for the resources to go, so they stay.
	if why, err := r.crdDeleting(ctx, r.Registry.groupKindOf(r.Kind)); err != nil {
		return err
	} else if why != "" {
		r.event(obj, corev1.EventTypeWarning, EventDetached, fmt.Sprintf("%s is left in Azure (%s)", st.ID, why))
		r.decide(ctx, obj, DecisionDetach, "why", why)
		return r.letGo(ctx, obj, p)
	}
	if f, err := r.goesWithOwner(ctx, obj); err != nil {
		return err
	} else if f != nil && f.wait {
		return newOutcome(ReasonDeleting, f.message)
	} else if f != nil {
		r.event(obj, corev1.EventTypeNormal, f.reason, f.message)
		decision := DecisionDelete
		if f.reason == EventDetached {
			decision = DecisionDetach
		}
		r.decide(ctx, obj, decision, "why", f.reason, "message", f.message)
		return r.letGo(ctx, obj, p)
	}
	if r.Kind.Facts().WithParent {
		msg := fmt.Sprintf("%s is left in Azure: Azure has no DELETE for %s, which goes with its parent", st.ID, r.Kind.Facts().ResourceType)
		r.event(obj, corev1.EventTypeNormal, EventDetached, msg)
		r.decide(ctx, obj, DecisionDetach, "why", "no delete in Azure")
		return r.letGo(ctx, obj, p)
	}
	if kept, err := r.keptChildren(ctx, obj); err != nil {
		return err
	} else if len(kept) > 0 {
		r.event(obj, corev1.EventTypeNormal, EventDetached, keptMessage(st.ID, r.Registry.groupKindOf(r.Kind).Kind, obj.GetName(), kept))
		r.decide(ctx, obj, DecisionDetach, "why", "children kept", "children", kept)
		return r.letGo(ctx, obj, p)
	}
	// The object deletes its resource: the steps that follow find the
	// credential and ARM ID and ask the guards, as for any call. Without an
	// identity or past the guards nothing can be deleted: they say why and
	// keep the finalizer, so nothing is orphaned silently (blocked).
	return nil
}

// resumeDeletion resumes a deletion recorded in status.resumeToken.
func (r *Reconciler) resumeDeletion(ctx context.Context, x *run) error {
	token := x.obj.AzureStatus().ResumeToken
	_, unusable := x.calls.Resume(token)
	if err := r.resume(ctx, x.calls, x.obj, x.scope); err != nil {
		return deleting(err)
	}
	x.resumed, x.resumedDone = true, unusable == nil
	return nil
}

// detachOwned lets go of a resource another object or onboarding owns: only
// what this object marked itself (or nobody marked) is deleted, never the
// platform's onboarded groups, never another object's.
func (r *Reconciler) detachOwned(ctx context.Context, x *run, who string) error {
	obj := x.obj
	msg := fmt.Sprintf("%s is owned by %s: a %s deletes only what it owns, so it is left in Azure (detached)", x.id, who, r.Registry.groupKindOf(r.Kind).Kind)
	r.event(obj, corev1.EventTypeWarning, EventDetached, msg)
	r.decide(ctx, obj, DecisionDetach, "why", "owned by "+who)
	newOutcome(ReasonOwnedByAnother, msg).apply(obj)
	if err := x.patch.patchStatus(ctx, obj); err != nil {
		return err
	}
	return r.letGo(ctx, obj, x.patch)
}

// deleteInAzure is modeDelete's last step: DELETE until ARM reports the
// resource gone, then let the object go.
func (r *Reconciler) deleteInAzure(ctx context.Context, x *run) error {
	obj, id, calls, scope := x.obj, x.id, x.calls, x.scope
	if x.actual == nil {
		msg := id + " is already gone in Azure (deleted with its parent, or outside aztenant)"
		if x.resumed {
			msg = "Deleted " + id + " in Azure"
		}
		r.event(obj, corev1.EventTypeNormal, EventDeleted, msg)
		r.decide(ctx, obj, DecisionDelete, "done", true, "alreadyGone", !x.resumed)
		return r.letGo(ctx, obj, x.patch)
	}
	r.decide(ctx, obj, DecisionDelete, "done", false)
	poller, err := calls.Delete(ctx, id)
	if err != nil {
		return r.blocked(ctx, obj, r.armFailure(err, scope))
	}
	if poller != nil {
		if _, err := r.poll(ctx, poller, obj, scope, "Deleting "+id); err != nil {
			return r.blocked(ctx, obj, deleting(err))
		}
	}
	// Deletion may finish after the operation reports success: look again.
	if actual, err := calls.Get(ctx, id); accessWentWithIt(err) {
		// gone, and the identity's role with it
	} else if err != nil {
		return r.blocked(ctx, obj, r.armFailure(err, scope))
	} else if actual != nil {
		return newOutcome(ReasonDeleting, "waiting for Azure to report "+id+" gone").after(r.PollInterval)
	}
	r.event(obj, corev1.EventTypeNormal, EventDeleted, "Deleted "+id+" in Azure")
	r.decide(ctx, obj, DecisionDelete, "done", true)
	return r.letGo(ctx, obj, x.patch)
}

// letGo removes the finalizer, at once: the object is gone once nothing else
// holds it, and what else the reconcile changed of it is not written.
func (r *Reconciler) letGo(ctx context.Context, obj azurev1alpha1.Resource, p *patcher) error {
	if err := p.removeFinalizer(ctx, obj); err != nil {
		return err
	}
	return errGone
}

// deleting names an unfinished operation of a deletion as such.
func deleting(err error) error {
	if o := outcomeOf(err); o != nil && o.Reason == ReasonReconciling {
		o.Reason = ReasonDeleting
	}
	return err
}

// blocked says that obj's resource cannot be deleted now, and how to let the
// object go when only a change in Azure or of its bounds would help. In a
// namespace being deleted, where the API server refuses new events, it
// tells the Namespace's events instead (kubectl describe namespace).
func (r *Reconciler) blocked(ctx context.Context, obj azurev1alpha1.Resource, err error) error {
	o := outcomeOf(err)
	if o == nil || o.Ready() != metav1.ConditionFalse {
		return err
	}
	o.Message = "cannot delete " + obj.AzureStatus().ID + " in Azure: " + o.Message
	if o.RequeueAfter == 0 && !o.Backoff {
		o.waiting(waitBlockedDeletion) // as the message promises
	}
	if o.Reason != ReasonAzureUnavailable && !strings.Contains(o.Message, string(PolicyDetachOnDelete)) {
		o.Message += "; the deletion is tried again by itself. To leave the resource in Azure and let the object go, annotate it " +
			AnnotationReconcilePolicy + ": " + string(PolicyDetachOnDelete)
	}
	if c := meta.FindStatusCondition(obj.AzureStatus().Conditions, ConditionReady); r.Recorder != nil && (c == nil || c.Reason != o.Reason || c.Message != o.Message) {
		var ns corev1.Namespace
		if err := r.Client.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, &ns); err == nil && ns.Status.Phase == corev1.NamespaceTerminating {
			r.Recorder.Eventf(&ns, obj, corev1.EventTypeWarning, o.Reason, "Delete", "%s %s/%s holds the namespace: %s",
				r.Registry.groupKindOf(r.Kind).Kind, obj.GetNamespace(), obj.GetName(), o.Message)
		}
	}
	return o
}

// fate is what becomes of a dependent's resource with its owner.
type fate struct {
	reason, message string
	// wait: the owner is not being deleted yet but will be (the namespace is
	// being deleted, and the namespace controller deletes objects kind by
	// kind): its fate is not known yet.
	wait bool
}

// goesWithOwner returns the fate of obj when it is deleted with or after its
// owner, or nil when obj decides for itself: it is not the owner's dependent
// (no owner reference to it: an owner by armId, or orphaned), or its owner
// exists and is not being deleted. In a namespace being deleted, a dependent
// waits for its owner's deletion, which is sure to come.
//
// A dependent's resource is inside its owner's (its ARM ID extends the
// owner's): the owner deletes it with its own, or leaves both in Azure. So
// the dependent calls nothing in Azure, and never deletes what its owner
// leaves in Azure (detach-on-delete, skip, release). The owner is read from
// the API server, not the cache: a cache that has not seen it yet must not
// make a dependent of a live owner let go of its resource.
func (r *Reconciler) goesWithOwner(ctx context.Context, obj azurev1alpha1.Resource) (*fate, error) {
	ref := obj.Owner()
	gk := r.ownerKindOf(obj)
	if ref == nil || ref.Name == "" || ref.ARMID != "" || gk.Empty() {
		return nil, nil
	}
	dep := ownerReferenceTo(obj, gk, ref.Name)
	if dep == nil {
		return nil, nil
	}
	owner, err := r.Registry.newObject(gk)
	if err != nil {
		return nil, nil
	}
	reader := client.Reader(r.Client)
	if r.APIReader != nil {
		reader = r.APIReader
	}
	id := obj.AzureStatus().ID
	err = reader.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, owner)
	switch {
	case apierrors.IsNotFound(err) || (err == nil && dep.UID != "" && owner.GetUID() != dep.UID):
		return &fate{reason: EventDeletedWithOwner, message: fmt.Sprintf("its owner %s %q is gone, and %s is inside that object's Azure resource, "+
			"which it deleted in Azure (taking this one with it) or left there as its reconcile policy said: nothing is called in Azure for this object", gk.Kind, ref.Name, id)}, nil
	case err != nil:
		return nil, err
	case owner.GetDeletionTimestamp().IsZero():
		var ns corev1.Namespace
		if err := reader.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, &ns); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		if ns.Status.Phase != corev1.NamespaceTerminating {
			return nil, nil
		}
		return &fate{wait: true, message: fmt.Sprintf("waiting for its owner %s %q to be deleted with the namespace: %s is inside that object's Azure resource, "+
			"which goes (or stays in Azure) with it", gk.Kind, ref.Name, id)}, nil
	}
	if why := r.ownerLeaves(ctx, owner); why != "" {
		return &fate{reason: EventDetached, message: fmt.Sprintf("%s is left in Azure inside the resource of its owner %s %q, which is being deleted and leaves its resource in Azure (%s)", id, gk.Kind, ref.Name, why)}, nil
	}
	return &fate{reason: EventDeletedWithOwner, message: fmt.Sprintf("%s is deleted in Azure with its owner %s %q, which is being deleted: ARM deletes it with that resource, so nothing is called in Azure for this object", id, gk.Kind, ref.Name)}, nil
}

// ownerLeaves says why an owner being deleted leaves its resource in Azure,
// or "" when it deletes it (or has let go already, either way).
func (r *Reconciler) ownerLeaves(ctx context.Context, owner azurev1alpha1.Resource) string {
	switch policy, err := r.policyFor(ctx, owner); {
	case err != nil:
		return ""
	case released(owner):
		return AnnotationRelease + ` is "true"`
	case policy != PolicyManage:
		return "reconcile policy " + string(policy)
	}
	gvk, err := apiutil.GVKForObject(owner, r.Client.Scheme())
	if err != nil {
		return ""
	}
	why, _ := r.crdDeleting(ctx, gvk.GroupKind())
	return why
}

// crdGVK is what crdDeleting reads of a CRD: its metadata.
var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// crdDeleting says why, when the CRD of gk is being deleted. It reads the
// API server, not the cache: the CRD's deletion must be seen before the
// deletion of its objects, which comes right after it.
func (r *Reconciler) crdDeleting(ctx context.Context, gk schema.GroupKind) (string, error) {
	mapping, err := r.Client.RESTMapper().RESTMapping(gk)
	if meta.IsNoMatchError(err) {
		return "the CRD of " + gk.String() + " is deleted: deleting a CRD never deletes Azure resources", nil
	} else if err != nil {
		return "", fmt.Errorf("CRD of %s: %w", gk, err)
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	name := mapping.Resource.Resource + "." + gk.Group
	var reader client.Reader = r.Client
	if r.APIReader != nil {
		reader = r.APIReader
	}
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, crd); apierrors.IsNotFound(err) {
		return "its CRD " + name + " is deleted: deleting a CRD never deletes Azure resources", nil
	} else if err != nil {
		return "", fmt.Errorf("CRD %s: %w", name, err)
	}
	if crd.GetDeletionTimestamp() != nil {
		return "its CRD " + name + " is being deleted: deleting a CRD never deletes Azure resources", nil
	}
	return "", nil
}

// ownerReferenceTo finds obj's owner reference to the object of kind gk
// named name.
func ownerReferenceTo(obj client.Object, gk schema.GroupKind, name string) *metav1.OwnerReference {
	refs := obj.GetOwnerReferences()
	for i, or := range refs {
		gv, err := schema.ParseGroupVersion(or.APIVersion)
		if err == nil && or.Name == name && or.Kind == gk.Kind && gv.Group == gk.Group {
			return &refs[i]
		}
	}
	return nil
}

// keptChildren names the objects that name obj as their owner, have a
// resource in Azure and stay after obj: not being deleted, and no longer its
// dependents (obj is being deleted with propagationPolicy Orphan, whose
// garbage collector removes their owner references, or they lost them
// earlier). ARM would delete their resources with obj's.
func (r *Reconciler) keptChildren(ctx context.Context, obj azurev1alpha1.Resource) ([]string, error) {
	gk := r.Registry.groupKindOf(r.Kind)
	orphaning := controllerutil.ContainsFinalizer(obj, metav1.FinalizerOrphanDependents)
	var kept []string
	for _, k := range r.Registry.Kinds() {
		if !mayBeOwnedBy(k, gk) || !r.Registry.Served(r.Registry.groupKindOf(k)) {
			continue
		}
		list, err := r.Registry.NewList(k)
		if err != nil {
			return nil, err
		}
		// From the API server, not the cache: the garbage collector has just
		// removed the orphans' owner references, and a cached child still
		// showing one would be taken for a dependent deleted with obj, and its
		// resource with obj's in Azure.
		if r.APIReader != nil {
			err = r.APIReader.List(ctx, list, client.InNamespace(obj.GetNamespace()))
		} else {
			err = r.Client.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{OwnerIndex: obj.GetName()})
		}
		if err != nil {
			return nil, err
		}
		kind := r.Registry.groupKindOf(k).Kind
		_ = meta.EachListItem(list, func(item runtime.Object) error {
			o := item.(azurev1alpha1.Resource)
			if ref := o.Owner(); ref == nil || ref.Name != obj.GetName() {
				return nil
			}
			if ownerKindOf(k, o) != gk || o.AzureStatus().ID == "" || !o.GetDeletionTimestamp().IsZero() {
				return nil
			}
			if dep := ownerReferenceTo(o, gk, obj.GetName()); !orphaning && dep != nil && dep.UID == obj.GetUID() {
				return nil // deleted after obj by the garbage collector, with it in Azure
			}
			kept = append(kept, kind+" "+o.GetName())
			return nil
		})
	}
	slices.Sort(kept)
	return kept, nil
}

func keptMessage(id, kind, name string, kept []string) string {
	shown := kept
	if len(shown) > 5 {
		shown = append(slices.Clone(kept[:5]), fmt.Sprintf("and %d more", len(kept)-5))
	}
	return fmt.Sprintf("%s is left in Azure: %d object(s) naming this one as their owner stay (%s), orphaned by the deletion "+
		"(propagationPolicy Orphan), and ARM would delete their resources with it. They wait for a %s %q to exist again: "+
		"create it with the annotation %s: \"true\" to manage the resource again, or delete them to delete their resources",
		id, len(kept), strings.Join(shown, ", "), kind, name, AnnotationAdopt)
}

// mayBeOwnedBy reports whether objects of kind k may name an owner of kind gk.
func mayBeOwnedBy(k Kind, gk schema.GroupKind) bool {
	f := k.Facts()
	return f.OwnerKind == gk || slices.Contains(f.OwnerKinds, gk)
}

// ownerKindOf is the kind of o's owner, o being of kind k.
func ownerKindOf(k Kind, o azurev1alpha1.Resource) schema.GroupKind {
	if ok, has := o.(interface{ OwnerGroupKind() schema.GroupKind }); has {
		return ok.OwnerGroupKind()
	}
	return k.Facts().OwnerKind
}

// ownerGone reports an object whose owner (by name) no longer exists or has
// no Azure resource, so its parent's ID can only come from status.id.
func (r *Reconciler) ownerGone(ctx context.Context, obj azurev1alpha1.Resource) bool {
	ref := obj.Owner()
	gk := r.ownerKindOf(obj)
	if ref == nil || ref.Name == "" || ref.ARMID != "" || gk.Empty() || strings.Contains(ref.Name, "/") {
		return false
	}
	owner, err := r.Registry.newObject(gk)
	if err != nil {
		return false
	}
	err = r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, owner)
	return apierrors.IsNotFound(err) || (err == nil && owner.AzureStatus().ID == "")
}

// accessWentWithIt reports a 403 on the GET that follows a deletion ARM
// reported done: an identity whose only role was on the deleted resource (a
// resource group onboarding created for the object) lost it with the
// resource, and ARM answers a read it may not make with 403, not 404.
func accessWentWithIt(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusForbidden
}
