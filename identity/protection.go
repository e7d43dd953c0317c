package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
)

// ProtectionFinalizer keeps an Identity and its ServiceAccount until no
// resource of the namespace needs them any more. Without it, deleting a
// namespace would delete the identity before the resources whose Azure
// deletion needs it, and orphan them in Azure.
const ProtectionFinalizer = "aztenant.io/identity-protection"

// ReasonTerminating is the Ready reason of an Identity being deleted while
// resources of its namespace still hold it: it serves only their deletions.
const ReasonTerminating = "Terminating"

// Holder is an object of a namespace that still holds the reconciler's
// finalizer, and so may still need an identity to delete its Azure resource.
type Holder struct {
	Kind, Name string
	// Identity is the name of the Identity serving it ("" if its annotation is invalid).
	Identity string
	// Deleting: the object has a deletion timestamp.
	Deleting bool
}

// InUseFunc lists the objects of a namespace that still hold their
// finalizer, that is, may still need an identity to act in Azure.
type InUseFunc func(ctx context.Context, namespace string) ([]Holder, error)

// protect keeps the finalizers on the Identity and its ServiceAccount, and
// releases them once they are being deleted and nothing needs them. It
// reports done when the reconcile should stop here. An Identity being deleted
// while resources of its namespace still hold it shows Ready=False with
// reason Terminating, naming them, and is not exchanged any more.
func (c *Controller) protect(ctx context.Context, id *identityv1alpha1.Identity) (bool, reconcile.Result, error) {
	var sa corev1.ServiceAccount
	saErr := c.Client.Get(ctx, client.ObjectKey{Namespace: id.Namespace, Name: id.Spec.ServiceAccountName}, &sa)
	if saErr != nil && !apierrors.IsNotFound(saErr) {
		return true, reconcile.Result{}, saErr
	}
	haveSA := saErr == nil
	deleting := !id.DeletionTimestamp.IsZero() || (haveSA && !sa.DeletionTimestamp.IsZero())
	if !deleting {
		if err := c.addFinalizer(ctx, id); err != nil {
			return true, reconcile.Result{}, err
		}
		if haveSA {
			if err := c.addFinalizer(ctx, &sa); err != nil {
				return true, reconcile.Result{}, err
			}
		}
		return false, reconcile.Result{}, nil
	}
	holders, err := c.InUse(ctx, id.Namespace)
	if err != nil {
		return true, reconcile.Result{}, err
	}
	if len(holders) > 0 {
		// Keep serving those resources meanwhile, and look again soon.
		again := reconcile.Result{RequeueAfter: 2 * time.Second}
		if !id.DeletionTimestamp.IsZero() {
			return true, again, c.showTerminating(ctx, id, holders)
		}
		return false, again, nil
	}
	if haveSA && (!sa.DeletionTimestamp.IsZero() || !id.DeletionTimestamp.IsZero()) {
		if err := c.removeFinalizer(ctx, &sa); err != nil {
			return true, reconcile.Result{}, err
		}
	}
	if !id.DeletionTimestamp.IsZero() {
		return true, reconcile.Result{}, c.removeFinalizer(ctx, id)
	}
	return false, reconcile.Result{}, nil
}

// showTerminating sets Ready=False, reason Terminating, with the resources
// that still hold the Identity.
func (c *Controller) showTerminating(ctx context.Context, id *identityv1alpha1.Identity, holders []Holder) error {
	before := id.DeepCopy()
	msg := TerminatingMessage(id.Namespace+"/"+id.Name, id.Namespace, holders)
	prev := meta.FindStatusCondition(id.Status.Conditions, ConditionReady)
	meta.SetStatusCondition(&id.Status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonTerminating, Message: msg, ObservedGeneration: id.Generation,
	})
	id.Status.ObservedGeneration = id.Generation
	if prev == nil || prev.Reason != ReasonTerminating {
		c.event(id, corev1.EventTypeNormal, ReasonTerminating, "%s", msg)
	}
	return c.patchStatus(ctx, before, id)
}

// TerminatingMessage says what an Identity being deleted waits for.
func TerminatingMessage(identityKey, namespace string, holders []Holder) string {
	hs := slices.Clone(holders)
	slices.SortFunc(hs, func(a, b Holder) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	const shown = 10
	var names []string
	for i, h := range hs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(hs)-shown))
			break
		}
		n := h.Kind + " " + h.Name
		if h.Deleting {
			n += " (being deleted)"
		}
		names = append(names, n)
	}
	return fmt.Sprintf("Identity %s is being deleted and serves only deletions: %d resource(s) of namespace %s still hold it (%s). "+
		"It is released when they are gone: delete them (their Azure resources are deleted with this identity), "+
		"or annotate them aztenant.io/reconcile-policy: detach-on-delete to leave their resources in Azure",
		identityKey, len(hs), namespace, strings.Join(names, ", "))
}

func (c *Controller) addFinalizer(ctx context.Context, o client.Object) error {
	if controllerutil.ContainsFinalizer(o, ProtectionFinalizer) {
		return nil
	}
	patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
	controllerutil.AddFinalizer(o, ProtectionFinalizer)
	return c.Client.Patch(ctx, o, patch)
}

func (c *Controller) removeFinalizer(ctx context.Context, o client.Object) error {
	if !controllerutil.ContainsFinalizer(o, ProtectionFinalizer) {
		return nil
	}
	patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
	controllerutil.RemoveFinalizer(o, ProtectionFinalizer)
	return client.IgnoreNotFound(c.Client.Patch(ctx, o, patch))
}
