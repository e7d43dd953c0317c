package reconcilers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// ownerNameField indexes objects by spec.owner.name, to find children.
const ownerNameField = "aztenant.spec.owner.name"

// delete handles an object being deleted: children first, then the Azure
// resource (policy manage) until ARM reports it gone, then the finalizer.
// With detach-on-delete or skip the Azure resource is left alone.
func (r *Reconciler) delete(ctx context.Context, obj azurev1alpha1.Resource, policy Policy) (*state, reconcile.Result, error) {
	before := obj.DeepCopyObject().(azurev1alpha1.Resource)
	st := obj.AzureStatus()
	if policy != PolicyManage || st.ID == "" || released(obj) {
		if err := r.removeFinalizer(ctx, obj, before); err != nil {
			return nil, reconcile.Result{}, err
		}
		return nil, reconcile.Result{}, errGone
	}
	if n, kind, err := r.children(ctx, obj); err != nil {
		return nil, reconcile.Result{}, err
	} else if n > 0 {
		s := inProgress(ReasonDeleting, fmt.Sprintf("waiting for %d %s owned by this object to be deleted first", n, kind))
		return &s, reconcile.Result{RequeueAfter: 2 * time.Second}, nil
	}
	calls, scope, _, s, res := r.prepare(ctx, obj)
	if s != nil {
		// Without an identity or past the guards nothing can be deleted; say
		// why and keep the finalizer so nothing is orphaned silently.
		s.message = "cannot delete " + st.ID + " in Azure: " + s.message
		if s.stalled && !strings.Contains(s.message, string(PolicyDetachOnDelete)) {
			s.message += "; to leave the resource in Azure and let the object go, annotate it " + AnnotationReconcilePolicy + ": " + string(PolicyDetachOnDelete)
		}
		return s, res, nil
	}
	if st.ResumeToken != "" {
		if s, res, done := r.resume(ctx, calls, obj, scope); !done {
			return s, res, nil
		}
	}
	if actual, err := calls.get(ctx, st.ID); err != nil {
		return r.armFailure(err, scope)
	} else if actual != nil {
		// Only what this object marked itself (or nobody marked) is deleted:
		// never the platform's onboarded groups, never another object's.
		who, err := r.ownerOf(ctx, obj, st.ID, actual, true)
		if err != nil {
			s := failed(ReasonGuardFailed, "could not check who owns "+st.ID+" before deleting it: "+err.Error(), false)
			return &s, reconcile.Result{RequeueAfter: 30 * time.Second}, nil
		}
		if who != "" {
			msg := fmt.Sprintf("%s is owned by %s: a %s deletes only what it owns, so it is left in Azure (detached)", st.ID, who, r.Registry.groupKindOf(r.Kind).Kind)
			r.event(obj, "Warning", "Detached", msg)
			s := failed(ReasonOwnedByAnother, msg, false)
			s.apply(obj)
			if err := r.patchStatus(ctx, before, obj); err != nil {
				return nil, reconcile.Result{}, err
			}
			if err := r.removeFinalizer(ctx, obj, before); err != nil {
				return nil, reconcile.Result{}, err
			}
			return nil, reconcile.Result{}, errGone
		}
		poller, err := calls.delete(ctx, st.ID)
		if err != nil {
			return r.armFailure(err, scope)
		}
		if poller != nil {
			if _, s, res, done := r.poll(ctx, poller, obj, scope, "Deleting "+st.ID); !done {
				return s, res, nil
			}
		}
		// Deletion may finish after the operation reports success: look again.
		if actual, err := calls.get(ctx, st.ID); err != nil {
			return r.armFailure(err, scope)
		} else if actual != nil {
			s := inProgress(ReasonDeleting, "waiting for Azure to report "+st.ID+" gone")
			return &s, reconcile.Result{RequeueAfter: r.PollInterval}, nil
		}
	}
	r.event(obj, "Normal", "Deleted", "Deleted "+st.ID+" in Azure")
	if err := r.removeFinalizer(ctx, obj, before); err != nil {
		return nil, reconcile.Result{}, err
	}
	return nil, reconcile.Result{}, errGone
}

// children counts objects in the namespace that name obj as their owner.
func (r *Reconciler) children(ctx context.Context, obj azurev1alpha1.Resource) (int, string, error) {
	gk := r.Registry.groupKindOf(r.Kind)
	for _, k := range r.Registry.childrenOf(gk) {
		list, err := r.Registry.newList(k)
		if err != nil {
			return 0, "", err
		}
		if err := r.Client.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{ownerNameField: obj.GetName()}); err != nil {
			return 0, "", err
		}
		if n := lenOf(list); n > 0 {
			return n, r.Registry.groupKindOf(k).Kind, nil
		}
	}
	return 0, "", nil
}
