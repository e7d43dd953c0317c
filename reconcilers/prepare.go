package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
	"github.com/aztenant/aztenant/tenancy"
)

// This file is the steps that settle, before Azure is called, whose
// credential calls, on which ARM ID, and whether the guards admit it; and the
// finalizer and owner reference written before anything is.

// stepCredential is the object's ARM client from the broker.
func (r *Reconciler) stepCredential(ctx context.Context, x *run) error {
	cl, scope, err := r.credential(ctx, x.obj)
	x.scope = scope
	if err != nil {
		return err
	}
	x.calls = armclient.New(cl, r.Kind.Facts().APIVersion)
	return nil
}

// stepParent is the ARM ID of the object's parent. A Plan may name an owner
// it creates itself (modePreview). An object being deleted whose owner is
// gone (it outlived it: orphaned, or the owner was deleted with
// detach-on-delete) has only status.id, which must end with the object's own
// type and name.
func (r *Reconciler) stepParent(ctx context.Context, x *run) error {
	obj := x.obj
	if x.mode == modeDelete && r.ownerGone(ctx, obj) {
		id := obj.AzureStatus().ID
		if suffix := armIDOf(r.Kind, obj, ""); len(id) <= len(suffix) || !strings.EqualFold(id[len(id)-len(suffix):], suffix) {
			return newOutcome(ReasonInvalidSpec, fmt.Sprintf("status.id %s is not a %s named %q: the object's Azure resource cannot be told, so nothing is deleted", id, r.Kind.Facts().ResourceType, obj.AzureName()))
		}
		x.id = id
		noteID(ctx, id)
		return nil
	}
	parentID, o := r.parentID(ctx, obj, x.scope)
	if o != nil && x.mode == modePreview && o.Reason == ReasonWaitingForOwner && x.owners != nil {
		if ref := obj.Owner(); ref != nil && ref.Name != "" {
			if p, ok := x.owners(r.ownerKindOf(obj), ref.Name); ok {
				parentID, x.parentCreating, o = p.ID, p.Creating, nil
			}
		}
	}
	if o != nil {
		return o
	}
	x.parentID = parentID
	return nil
}

// stepARMID is the object's ARM ID, which cannot change once it has one.
func (r *Reconciler) stepARMID(ctx context.Context, x *run) error {
	if x.id != "" {
		return nil // from status.id (stepParent)
	}
	id := armIDOf(r.Kind, x.obj, x.parentID)
	noteID(ctx, id)
	if st := x.obj.AzureStatus(); st.ID != "" && !strings.EqualFold(st.ID, id) {
		return newOutcome(ReasonInvalidSpec, fmt.Sprintf("the resource is %s in Azure but the spec now names %s: the name and owner cannot change; delete and recreate the object instead", st.ID, id))
	}
	if x.mode == modeDelete {
		id = x.obj.AzureStatus().ID // what was created, as it was spelled
	}
	x.id = id
	return nil
}

// stepAdmit asks the guards (the Tenant's bounds, the policy library) about
// a call on the object's ARM ID, in every mode: a refusal is an outcome,
// never an ARM call.
func (r *Reconciler) stepAdmit(ctx context.Context, x *run) error {
	if o := r.admit(ctx, x.obj, x.id, x.scope); o != nil {
		return o
	}
	return nil
}

// stepIdentity refuses creates and updates while the Identity serving the
// object is being deleted.
func (r *Reconciler) stepIdentity(ctx context.Context, x *run) error {
	if o := r.identityTerminating(ctx, x.obj); o != nil {
		return o
	}
	return nil
}

// stepFinalizer adds the finalizer before anything is written to Azure (or
// status.id), so nothing the object creates can outlive it, and the owner
// reference.
func (r *Reconciler) stepFinalizer(ctx context.Context, x *run) error {
	if err := x.patch.addFinalizer(ctx, x.obj); err != nil {
		return err
	}
	return r.ensureOwnerReference(ctx, x.obj, x.patch)
}

// credential is obj's ARM client from the broker (the Identity of its
// namespace, and nothing else), resolved in a span of its own.
func (r *Reconciler) credential(ctx context.Context, obj azurev1alpha1.Resource) (*arm.Client, identity.Scope, error) {
	cctx, endSpan := startCredentialSpan(ctx)
	cl, scope, err := r.Broker.ARMClientFor(cctx, obj)
	endSpan(scope, err)
	noteScope(ctx, scope)
	if err != nil {
		reason := identity.ReasonOf(err)
		if reason == "" {
			reason = identity.ReasonTokenRequestFailed
		}
		return nil, scope, newOutcome(reason, err.Error())
	}
	return cl, scope, nil
}

// admit asks the guards about a call on id; nil admits it.
func (r *Reconciler) admit(ctx context.Context, obj azurev1alpha1.Resource, id string, scope identity.Scope) *Outcome {
	target, err := r.target(obj, id, scope)
	if err != nil {
		return newOutcome(tenancy.ReasonPolicyDenied, err.Error())
	}
	for _, g := range r.Guards {
		if o := guardOutcome(g.Admit(ctx, obj, target)); o != nil {
			return o
		}
	}
	return nil
}

// guardOutcome is a guard's answer as an outcome: nil admits; a refusal is
// an error with a Reason; anything else means the guard could not decide,
// and nothing is called (fail closed).
func guardOutcome(err error) *Outcome {
	if err == nil {
		return nil
	}
	var reasoned interface{ Reason() string }
	if !errors.As(err, &reasoned) {
		return newOutcome(ReasonGuardFailed, "could not check the request before calling Azure: "+err.Error())
	}
	return newOutcome(reasoned.Reason(), err.Error())
}

func (r *Reconciler) target(obj azurev1alpha1.Resource, id string, scope identity.Scope) (tenancy.Target, error) {
	parsed, err := tenancy.ParseARMID(id)
	if err != nil {
		return tenancy.Target{}, err
	}
	t := tenancy.Target{ARMID: id, SubscriptionID: scope.SubscriptionID, ResourceGroup: parsed.ResourceGroup, GroupKind: obj.GetObjectKind().GroupVersionKind().GroupKind()}
	if t.GroupKind.Empty() {
		t.GroupKind = r.Registry.groupKindOf(r.Kind)
	}
	if location := r.Kind.Hooks().Location; location != nil {
		t.Location = location(obj)
	}
	return t, nil
}

// identityTerminating refuses creates and updates while the Identity serving
// obj is being deleted: it serves only deletions of what it created.
func (r *Reconciler) identityTerminating(ctx context.Context, obj azurev1alpha1.Resource) *Outcome {
	name, err := identity.IdentityNameFor(obj)
	if err != nil {
		return nil // the broker has said so already
	}
	var id identityv1alpha1.Identity
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, &id); err != nil || id.DeletionTimestamp.IsZero() {
		return nil
	}
	kind := r.Registry.groupKindOf(r.Kind).Kind
	return newOutcome(ReasonIdentityTerminating, fmt.Sprintf("Identity %s/%s is being deleted and serves only deletions: %s %q is not created or updated in Azure. "+
		"The Identity waits for the namespace's resources that still hold it (its Ready condition lists them); "+
		"delete this object to delete its Azure resource, or annotate it %s: detach-on-delete to leave the resource in Azure",
		id.Namespace, id.Name, kind, obj.GetName(), AnnotationReconcilePolicy))
}

// revoked reports the reasons of an Identity or Tenant being deleted, which
// serve deletions only.
func revoked(reason string) bool {
	return reason == ReasonIdentityTerminating || reason == tenancy.ReasonTenantTerminating
}

// parentID is the ARM ID of obj's parent: the subscription for resource groups,
// the owner's ID once the owner is Ready, or an unmanaged owner's armId.
func (r *Reconciler) parentID(ctx context.Context, obj azurev1alpha1.Resource, scope identity.Scope) (string, *Outcome) {
	ref := obj.Owner()
	if ref != nil && ref.ARMID != "" {
		return strings.TrimSuffix(ref.ARMID, "/"), nil
	}
	ownerKind := r.ownerKindOf(obj)
	if ownerKind.Empty() {
		return "/subscriptions/" + scope.SubscriptionID, nil
	}
	if ref == nil || ref.Name == "" {
		return "", newOutcome(ReasonInvalidSpec, "spec.owner is required: name a "+ownerKind.Kind+" in this namespace")
	}
	if ns, name, ok := strings.Cut(ref.Name, "/"); ok {
		// "namespace/name" is an attempt to reach across namespaces: say so
		// rather than wait forever for an owner that cannot exist here.
		err := tenancy.SameNamespace(obj, ownerKind.Kind, ns, name)
		if err == nil {
			err = fmt.Errorf("spec.owner.name %q is not a plain name: name a %s in this namespace", ref.Name, ownerKind.Kind)
		}
		reason := ReasonInvalidSpec
		if ce, ok := err.(*tenancy.CrossNamespaceError); ok {
			reason = ce.Reason()
		}
		return "", newOutcome(reason, err.Error())
	}
	owner, err := r.Registry.newObject(ownerKind)
	if err != nil {
		return "", newOutcome(ReasonInvalidSpec, err.Error())
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, owner); err != nil {
		return "", newOutcome(ReasonWaitingForOwner, fmt.Sprintf("waiting for %s %q in this namespace: %v", ownerKind.Kind, ref.Name, errorText(err)))
	}
	// A child being deleted only needs its owner's ID: the owner itself may be
	// deleting (and so not Ready), waiting for its children to go first.
	deleting := !obj.GetDeletionTimestamp().IsZero()
	if (!IsReady(owner) && !deleting) || owner.AzureStatus().ID == "" {
		msg := fmt.Sprintf("waiting for %s %q to be Ready", ownerKind.Kind, ref.Name)
		if !owner.GetDeletionTimestamp().IsZero() {
			// A new child of an owner on its way out would be deleted with it.
			msg = fmt.Sprintf("%s %q is being deleted: this object waits for an owner of that name that is not being deleted (delete this object, or create the owner again once it is gone)", ownerKind.Kind, ref.Name)
		} else if IsReady(owner) {
			// Skipped (or released) before anything of it was in Azure.
			msg = fmt.Sprintf("waiting for %s %q to have a resource in Azure (its Ready reason is %s)", ownerKind.Kind, ref.Name, readyReason(owner))
		}
		return "", newOutcome(ReasonWaitingForOwner, msg)
	}
	return owner.AzureStatus().ID, nil
}

func (r *Reconciler) ownerKindOf(obj azurev1alpha1.Resource) schema.GroupKind {
	if ok, has := obj.(interface{ OwnerGroupKind() schema.GroupKind }); has {
		// Some kinds (role assignments) let each object say what its owner is.
		return ok.OwnerGroupKind()
	}
	return r.Kind.Facts().OwnerKind
}

// ensureOwnerReference points obj's metadata at its owner, so Kubernetes'
// garbage collector deletes children with their parent (and tools such as
// Argo CD show the tree), and writes it at once. It is not a controller
// reference: the owner does not manage the child. It blocks the owner's
// deletion, so a foreground deletion (kubectl delete --cascade=foreground)
// ends with the owner, after its children, as Kubernetes documents it; the
// children's objects go without an ARM call of their own either way.
func (r *Reconciler) ensureOwnerReference(ctx context.Context, obj azurev1alpha1.Resource, p *patcher) error {
	ref := obj.Owner()
	gk := r.ownerKindOf(obj)
	if ref == nil || ref.Name == "" || gk.Empty() {
		return nil
	}
	// Steady state: the reference is already there, no need to read the owner.
	for _, or := range obj.GetOwnerReferences() {
		if or.Name == ref.Name && or.Kind == gk.Kind && ptr.Deref(or.BlockOwnerDeletion, false) {
			return nil
		}
	}
	owner, err := r.Registry.newObject(gk)
	if err != nil {
		return nil
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, owner); err != nil {
		return nil // parentID has reported it already
	}
	if err := controllerutil.SetOwnerReference(owner, obj, r.Client.Scheme(), controllerutil.WithBlockOwnerDeletion(true)); err != nil {
		return err
	}
	return p.patchMetadata(ctx, obj)
}

func errorText(err error) string {
	if apierrors.IsNotFound(err) {
		return "it does not exist"
	}
	return err.Error()
}

func readyReason(obj azurev1alpha1.Resource) string {
	for _, c := range obj.AzureStatus().Conditions {
		if c.Type == ConditionReady {
			return c.Reason
		}
	}
	return ""
}
