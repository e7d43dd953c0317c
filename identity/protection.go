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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
)

// ProtectionFinalizer keeps an Identity and its ServiceAccount while
// resources that use them may still need them. Without it, deleting a
// namespace would delete the identity before the resources whose Azure
// deletion needs it, and orphan them in Azure.
//
// What holds what: a resource holds the Identity it uses (IdentityNameFor:
// its aztenant.io/identity annotation, else "default"), also while it is being
// deleted, since its Azure DELETE is made as that Identity; a ServiceAccount
// is held by the resources using any Identity that can act with it (the
// reserved provisioner account, or any with the operator's
// --insecure-allow-unreserved-service-accounts, or the platform Identity's),
// and kept while such an Identity is in service. Nothing else holds either:
// an Identity nobody uses goes as soon as it is deleted, and an account no
// Identity can act with gets no finalizer at all.
const ProtectionFinalizer = "aztenant.io/identity-protection"

// ReasonTerminating is the Ready reason of an Identity being deleted while
// resources that use it still hold it: it serves only their deletions.
const ReasonTerminating = "Terminating"

// Holder is an object of a namespace that still holds the reconciler's
// finalizer, and so may still need the Identity it uses to delete its
// Azure resource.
type Holder struct {
	Kind, Name string
	// Identity is the name of the Identity serving it ("" if its annotation
	// is invalid: it can use none, and holds none).
	Identity string
	// Deleting: the object has a deletion timestamp.
	Deleting bool
}

// InUseFunc lists the objects of a namespace that still hold their
// finalizer, that is, may still need an identity to act in Azure; each
// names the Identity it uses.
type InUseFunc func(ctx context.Context, namespace string) ([]Holder, error)

// UsersOf returns the holders that use the Identity named name: those the
// Identity must outlive.
func UsersOf(holders []Holder, name string) []Holder {
	var out []Holder
	for _, h := range holders {
		if h.Identity != "" && h.Identity == name {
			out = append(out, h)
		}
	}
	return out
}

// canAct reports whether the operator acts as id with its ServiceAccount at
// all: the reserved provisioner account (or any, with the insecure flag), or
// the platform's own Identity. Only then does the ServiceAccount matter to
// any resource's deletion.
func (c *Controller) canAct(id *identityv1alpha1.Identity) bool {
	if client.ObjectKeyFromObject(id) == c.Platform {
		return true
	}
	allow := c.Broker != nil && c.Broker.UnreservedAllowed()
	return CheckReserved(id, allow) == nil
}

// protect keeps the finalizers on the Identity and its ServiceAccount, and
// releases each once it is being deleted and no resource uses it (see
// ProtectionFinalizer). It reports done when the reconcile should stop here.
// An Identity being deleted while resources using it still hold it shows
// Ready=False with reason Terminating, naming them, and is not exchanged any
// more.
func (c *Controller) protect(ctx context.Context, id *identityv1alpha1.Identity) (bool, reconcile.Result, error) {
	var sa corev1.ServiceAccount
	saErr := c.Client.Get(ctx, client.ObjectKey{Namespace: id.Namespace, Name: id.Spec.ServiceAccountName}, &sa)
	if saErr != nil && !apierrors.IsNotFound(saErr) {
		return true, reconcile.Result{}, saErr
	}
	haveSA := saErr == nil
	idDeleting := !id.DeletionTimestamp.IsZero()
	saDeleting := haveSA && !sa.DeletionTimestamp.IsZero()
	if !idDeleting {
		if err := c.addFinalizer(ctx, id); err != nil {
			return true, reconcile.Result{}, err
		}
	}
	if !idDeleting && !saDeleting && (!haveSA || c.canAct(id)) {
		// In service, the common case: no listing of the namespace's objects.
		if haveSA {
			if err := c.addFinalizer(ctx, &sa); err != nil {
				return true, reconcile.Result{}, err
			}
		}
		return false, reconcile.Result{}, nil
	}
	if !idDeleting && !saDeleting && !controllerutil.ContainsFinalizer(&sa, ProtectionFinalizer) {
		// An account this Identity cannot act with, and unprotected: leave it so.
		return false, reconcile.Result{}, nil
	}

	// Something is being deleted, or an account this Identity cannot act
	// with carries the finalizer (put there before this rule): who uses what.
	all, err := c.InUse(ctx, id.Namespace)
	if err != nil {
		return true, reconcile.Result{}, err
	}
	// Keep serving the resources that still need the Identity or its
	// ServiceAccount meanwhile, and look again soon.
	again := reconcile.Result{RequeueAfter: 2 * time.Second}
	saNeeded := false
	if haveSA {
		if saNeeded, err = c.serviceAccountNeeded(ctx, &sa, all); err != nil {
			return true, reconcile.Result{}, err
		}
		if !saNeeded {
			if err := c.removeFinalizer(ctx, &sa); err != nil {
				return true, reconcile.Result{}, err
			}
		}
	}
	if idDeleting {
		if users := UsersOf(all, id.Name); len(users) > 0 {
			return true, again, c.showTerminating(ctx, id, users)
		}
		return true, reconcile.Result{}, c.removeFinalizer(ctx, id)
	}
	if saDeleting && saNeeded {
		return false, again, nil
	}
	return false, reconcile.Result{}, nil
}

// serviceAccountNeeded reports whether sa must keep the protection
// finalizer: an Identity of its namespace that the operator can act as with
// it is used by a resource (all lists the namespace's holders), or is in
// service (neither it nor sa is being deleted). Identities that cannot act
// with sa, or that nobody uses and are being deleted, do not hold it.
func (c *Controller) serviceAccountNeeded(ctx context.Context, sa *corev1.ServiceAccount, all []Holder) (bool, error) {
	var ids identityv1alpha1.IdentityList
	if err := c.Client.List(ctx, &ids, client.InNamespace(sa.Namespace)); err != nil {
		return false, err
	}
	for i := range ids.Items {
		x := &ids.Items[i]
		if x.Spec.ServiceAccountName != sa.Name || !c.canAct(x) {
			continue
		}
		if len(UsersOf(all, x.Name)) > 0 {
			return true, nil
		}
		if x.DeletionTimestamp.IsZero() && sa.DeletionTimestamp.IsZero() {
			return true, nil
		}
	}
	return false, nil
}

// setupServiceAccountRelease registers what releases a ServiceAccount that
// is being deleted, carries the protection finalizer and is named by no
// Identity (its Identity was deleted, or now names another account): no
// Identity's reconcile looks at it any more, and no resource can use it.
func (c *Controller) setupServiceAccountRelease(mgr ctrl.Manager) error {
	held := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return !o.GetDeletionTimestamp().IsZero() && controllerutil.ContainsFinalizer(o, ProtectionFinalizer)
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("identity-serviceaccount").
		For(&corev1.ServiceAccount{}, builder.WithPredicates(held)).
		Complete(reconcile.Func(c.releaseUnnamed))
}

func (c *Controller) releaseUnnamed(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var sa corev1.ServiceAccount
	if err := c.Client.Get(ctx, req.NamespacedName, &sa); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if sa.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(&sa, ProtectionFinalizer) {
		return reconcile.Result{}, nil
	}
	var ids identityv1alpha1.IdentityList
	if err := c.Client.List(ctx, &ids, client.InNamespace(sa.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	for _, id := range ids.Items {
		if id.Spec.ServiceAccountName == sa.Name {
			return reconcile.Result{}, nil // its reconcile decides (protect)
		}
	}
	return reconcile.Result{}, c.removeFinalizer(ctx, &sa)
}

// showTerminating sets Ready=False, reason Terminating, with the resources
// that use the Identity and still hold it.
func (c *Controller) showTerminating(ctx context.Context, id *identityv1alpha1.Identity, holders []Holder) error {
	before := id.DeepCopy()
	msg := TerminatingMessage(id.Namespace+"/"+id.Name, id.Namespace, holders)
	// The reason before the update: SetStatusCondition rewrites the
	// condition FindStatusCondition points to.
	prevReason := ""
	if prev := meta.FindStatusCondition(id.Status.Conditions, ConditionReady); prev != nil {
		prevReason = prev.Reason
	}
	meta.SetStatusCondition(&id.Status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonTerminating, Message: msg, ObservedGeneration: id.Generation,
	})
	id.Status.ObservedGeneration = id.Generation
	if prevReason != ReasonTerminating {
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
