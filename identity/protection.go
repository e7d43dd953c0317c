package identity

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// InUseFunc counts the objects of a namespace that still hold their
// finalizer, that is, may still need an identity to act in Azure.
type InUseFunc func(ctx context.Context, namespace string) (int, error)

// protect keeps the finalizers on the Identity and its ServiceAccount, and
// releases them once they are being deleted and nothing needs them. It
// reports done when the reconcile should stop here.
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
	n, err := c.InUse(ctx, id.Namespace)
	if err != nil {
		return true, reconcile.Result{}, err
	}
	if n > 0 {
		// Keep serving those resources meanwhile, and look again soon.
		return false, reconcile.Result{RequeueAfter: 2 * time.Second}, nil
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
