package reconcilers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/expressions"
	"github.com/aztenant/aztenant/tenancy"
)

// Finalizer keeps an object until its Azure resource is deleted or detached.
const Finalizer = "aztenant.io/finalizer"

// Broker is what the reconciler needs from the credential broker.
type Broker interface {
	ARMClientFor(ctx context.Context, obj client.Object) (*arm.Client, identity.Scope, error)
}

// Guard admits or denies an ARM call before it is made (tenancy bounds, policy).
type Guard interface {
	Admit(ctx context.Context, obj client.Object, t tenancy.Target) error
}

// Reconciler is the generic ARM reconciler of one Kind.
type Reconciler struct {
	Client   client.Client
	Kind     Kind
	Registry *Registry
	Broker   Broker
	Guards   []Guard
	Recorder events.EventRecorder
	// Expressions evaluates spec.operatorSpec CEL exports (shared by all kinds:
	// each expression compiles once).
	Expressions *expressions.Evaluator
	// SyncPeriod is how often an unchanged resource is compared with Azure to
	// correct drift; a tenth of it is added at random so resyncs spread out.
	SyncPeriod    time.Duration
	DefaultPolicy Policy
	// PollInterval is how soon an unfinished long-running operation is polled
	// again when ARM gives no Retry-After.
	PollInterval time.Duration
	// APIReader, when set, reads an object from the API server when the cached
	// copy may predate this reconciler's last write to it (see lastWrites).
	APIReader client.Reader
	// ClusterID identifies the cluster in the owner marker (TagOwner) of the
	// resources this reconciler creates or adopts: the kube-system
	// namespace's UID by default.
	ClusterID string

	writes lastWrites
	auth   authBackoff
}

// Reconcile implements reconcile.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	kind := r.Registry.groupKindOf(r.Kind).Kind
	ctx, span := tracer.Start(ctx, "Reconcile "+kind, trace.WithAttributes(
		attribute.String("k8s.namespace.name", req.Namespace), attribute.String("aztenant.name", req.Name)))
	defer span.End()
	ctx = withNotes(withLabels(ctx, kind, req.Namespace))
	// Every line of this reconcile, the broker's included, names the kind
	// (controller-runtime's logger names the namespace and name).
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("kind", kind))
	obj := r.Kind.New()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.forget(req.NamespacedName)
			r.auth.reset(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	// Being deleted, the object is read from the API server too: what is done
	// in Azure follows its annotations as they are now (policyFor reads the
	// namespace's the same way).
	if r.APIReader != nil && (r.writes.differs(obj) || !obj.GetDeletionTimestamp().IsZero()) {
		if err := r.APIReader.Get(ctx, req.NamespacedName, obj); err != nil {
			if apierrors.IsNotFound(err) {
				r.writes.forget(req.NamespacedName)
			}
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		// Known fresh now: once the cache holds this version, it is read from
		// the cache again.
		r.writes.record(obj)
	}
	before := obj.DeepCopyObject().(azurev1alpha1.Resource)
	tr := traceReconcile(span, obj)
	s, result, err := r.reconcile(ctx, obj, before)
	if errors.Is(err, errGone) {
		tr.end(ctx, obj, nil, reconcile.Result{}, err)
		r.auth.reset(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	if s != nil && (s.backoff || s.reason == ReasonAuthorizationFailed) {
		result.RequeueAfter = r.auth.next(req.NamespacedName)
		if obj.GetDeletionTimestamp().IsZero() && strings.EqualFold(r.Kind.ResourceType(), resourceGroupType) && obj.AzureStatus().ID == "" {
			s.message += "; " + newGroupHint(s.message)
		}
	} else if s != nil {
		r.auth.reset(req.NamespacedName)
	}
	if s != nil {
		changed := s.apply(obj)
		if changed {
			typ := corev1.EventTypeNormal
			if s.ready == "False" {
				typ = corev1.EventTypeWarning
			}
			r.event(obj, typ, s.reason, s.message)
		}
		r.logOutcome(ctx, obj, s, changed)
	}
	if perr := r.patchStatus(ctx, before, obj); perr != nil && err == nil {
		err = perr
	}
	tr.end(ctx, obj, s, result, err)
	return result, err
}

// errGone says the object no longer exists (its finalizer was removed).
var errGone = errors.New("object gone")

func (r *Reconciler) reconcile(ctx context.Context, obj, before azurev1alpha1.Resource) (*state, reconcile.Result, error) {
	policy, err := r.policyFor(ctx, obj)
	if err != nil {
		var invalid *invalidPolicyError
		if !errors.As(err, &invalid) {
			// Not known: in particular, nothing is deleted in Azure on a
			// policy that could not be read.
			return nil, reconcile.Result{}, err
		}
		s := newState(ReasonInvalidSpec, err.Error())
		return &s, reconcile.Result{}, nil
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.delete(ctx, obj, policy)
	}
	if policy == PolicySkip {
		s := newState(ReasonReconcileSkipped, AnnotationReconcilePolicy+" is skip: Azure is neither read nor written")
		return &s, reconcile.Result{}, r.removeFinalizer(ctx, obj, before)
	}
	if released(obj) {
		msg := AnnotationRelease + " is \"true\": this object lets go of its Azure resource and writes nothing to it; another object may adopt it, and deleting this one leaves it in Azure"
		if id := obj.AzureStatus().ID; id != "" {
			msg = AnnotationRelease + " is \"true\": this object lets go of " + id + " and writes nothing to it; another object may adopt it, and deleting this one leaves it in Azure"
		}
		s := newState(ReasonReleased, msg)
		return &s, reconcile.Result{}, r.removeFinalizer(ctx, obj, before)
	}
	period, err := r.syncPeriod(obj)
	if err != nil {
		s := newState(ReasonInvalidSpec, err.Error())
		return &s, reconcile.Result{}, nil
	}
	calls, scope, id, s, res := r.prepare(ctx, obj)
	if s != nil {
		if revoked(s.reason) && obj.AzureStatus().ID == "" {
			// Nothing of it is in Azure: it must not hold back the Identity
			// or Tenant being deleted.
			if err := r.removeFinalizer(ctx, obj, before); err != nil {
				return nil, reconcile.Result{}, err
			}
		}
		return s, res, nil
	}
	if s, res := r.verify(ctx, calls, obj, id, scope); s != nil {
		return s, res, nil
	}
	// Before anything is written to Azure (or status.id), so nothing the
	// object creates can outlive it.
	if err := r.addFinalizer(ctx, obj, before); err != nil {
		return nil, reconcile.Result{}, err
	}
	if err := r.ensureOwnerReference(ctx, obj, before); err != nil {
		return nil, reconcile.Result{}, err
	}
	st := obj.AzureStatus()
	if st.ResumeToken != "" {
		if s, res, done := r.resume(ctx, calls, obj, scope); !done {
			return s, res, nil
		}
	}

	actual, err := calls.get(ctx, id)
	if err != nil {
		return r.armFailure(err, scope)
	}
	if actual != nil {
		// Before adopting or writing: a resource another object (or
		// onboarding) owns is not this object's to manage.
		who, err := r.ownerOf(ctx, obj, id, actual, false)
		if err != nil {
			s := newState(ReasonGuardFailed, "could not check who owns the resource before writing to it: "+err.Error())
			return &s, reconcile.Result{RequeueAfter: 30 * time.Second}, nil
		}
		if who != "" {
			s := newState(ReasonOwnedByAnother, fmt.Sprintf("%s is owned by %s. This object does not adopt it or write to it, and deleting this object leaves it in Azure", id, who))
			// The owner letting go produces no event here: look again later.
			return &s, reconcile.Result{RequeueAfter: time.Minute}, nil
		}
	}
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
	if actual != nil && st.ID == "" {
		if obj.GetAnnotations()[AnnotationAdopt] != "true" {
			s := newState(ReasonAlreadyExists, fmt.Sprintf("%s already exists in Azure and was not created by this object; annotate it %s: \"true\" to adopt it", id, AnnotationAdopt))
			return &s, reconcile.Result{}, nil
		}
		st.Adopted = true
		st.ID = id
		r.event(obj, corev1.EventTypeNormal, "Adopted", "Adopted existing Azure resource "+id)
		r.decide(ctx, obj, DecisionAdopt)
	}

	var resolved map[string]string
	if res, ok := r.Kind.(Resolver); ok {
		if resolved, err = res.Resolve(ctx, namespaceReader{r.Client, obj.GetNamespace()}, obj); err != nil {
			s := newState(ReasonReferenceNotFound, err.Error())
			return &s, reconcile.Result{RequeueAfter: 10 * time.Second}, nil
		}
	}
	desired, err := r.desired(obj, resolved)
	if err != nil {
		s := newState(ReasonInvalidSpec, err.Error())
		return &s, reconcile.Result{}, nil
	}
	specTags, dropped, tagged := r.applyTags(obj, desired)
	if createdFor != "" && tagged {
		// Good for the first time only: a later object of the same name
		// must adopt.
		dropped = append(dropped, TagCreatedFor)
	}
	var ignore []string
	if ci, ok := r.Kind.(CompareIgnorer); ok {
		ignore = ci.IgnoreOnCompare()
	}
	var eq func(path, desired, observed string) bool
	if e, ok := r.Kind.(Equivalencer); ok {
		eq = e.Equivalent
	}
	var woHash string
	if len(ignore) > 0 { // only kinds with write-only values read the key's Secrets
		var refs []Reference
		if rf, ok := r.Kind.(Referencer); ok {
			refs = rf.References(obj)
		}
		woHash = writeOnlyHash(writeOnlyKey(ctx, namespaceReader{r.Client, obj.GetNamespace()}, obj, refs), desired, ignore)
	}
	diff := "(absent)"
	if actual != nil {
		diff = driftWith(desired, actual, ignore, eq)
		if diff == "" {
			diff = droppedTag(actual, dropped)
		}
		if diff == "" && woHash != "" && woHash != st.WriteOnlyHash {
			// ARM never returns write-only values: a digest other than the one
			// last written (a rotated password, or none known) is the drift.
			diff = writeOnlyPaths(desired, ignore) + " (write-only, not the value last written)"
		}
	}
	if diff != "" {
		if actual == nil && st.ID == "" {
			// Record the ID before creating: if the operator dies after the PUT,
			// the next attempt knows the resource is its own, not a stranger to adopt.
			st.ID = id
			s := newState(ReasonReconciling, "Creating "+id)
			s.apply(obj)
			if err := r.patchStatus(ctx, before, obj); err != nil {
				return nil, reconcile.Result{}, err
			}
			before.AzureStatus().ID = id
			r.decide(ctx, obj, DecisionCreate)
		} else if actual != nil {
			r.event(obj, corev1.EventTypeNormal, "Updating", fmt.Sprintf("Azure differs from the spec at %s: updating", diff))
			r.decide(ctx, obj, DecisionUpdate, "diff", diff)
		} else {
			// Recorded but missing in Azure (deleted outside aztenant): created again.
			r.decide(ctx, obj, DecisionCreate, "diff", diff)
		}
		// A PUT replaces every tag: keep those the spec does not manage.
		poller, err := calls.put(ctx, id, carryOnPut(r.Kind, mergeTags(desired, actual, dropped), actual))
		if err != nil {
			return r.armFailure(err, scope)
		}
		// Azure has the values now; recorded with a resume token, the digest
		// stays true of the operation a restarted operator resumes.
		st.WriteOnlyHash = woHash
		body, s, res, done := r.poll(ctx, poller, obj, scope, "Writing "+id)
		if !done {
			return s, res, nil
		}
		actual = body
		if actual == nil {
			if actual, err = calls.get(ctx, id); err != nil {
				return r.armFailure(err, scope)
			}
		}
	}
	st.ID = id
	st.WriteOnlyHash = woHash // unchanged, or "" once the spec has no write-only value
	if tagged {
		st.ManagedTags = specTags // written (or already there): the names to remove once they leave the spec
	}
	if actual != nil {
		r.Kind.Observe(obj, actual)
		st.ProvisioningState = provisioningState(actual)
	}
	if ps := st.ProvisioningState; !terminalState(ps) {
		// An operation is still running in Azure (ours, seen before its resume
		// token, or someone else's): the resource is not Ready until it ends.
		s := newState(ReasonReconciling, fmt.Sprintf("Azure reports provisioningState %s for %s: waiting for it to finish", ps, id))
		return &s, reconcile.Result{RequeueAfter: r.PollInterval}, nil
	}
	if s := r.export(ctx, obj, calls, id); s != nil {
		return s, reconcile.Result{RequeueAfter: exportRetry(*s, period)}, nil
	}
	ready := readyState()
	return &ready, reconcile.Result{RequeueAfter: jitter(period)}, nil
}

// prepare resolves the identity, the parent and the ARM ID, and asks the guards.
// A non-nil state means stop here without calling Azure.
func (r *Reconciler) prepare(ctx context.Context, obj azurev1alpha1.Resource) (armCalls, identity.Scope, string, *state, reconcile.Result) {
	cctx, endSpan := startCredentialSpan(ctx)
	cl, scope, err := r.Broker.ARMClientFor(cctx, obj)
	endSpan(scope, err)
	noteScope(ctx, scope)
	if err != nil {
		reason := identity.ReasonOf(err)
		if reason == "" {
			reason = identity.ReasonTokenRequestFailed
		}
		s := newState(reason, err.Error())
		return armCalls{}, scope, "", &s, reconcile.Result{RequeueAfter: credentialRetry(reason)}
	}
	parentID, s := r.parentID(ctx, obj, scope)
	if s != nil {
		return armCalls{}, scope, "", s, reconcile.Result{RequeueAfter: 10 * time.Second}
	}
	id := armIDOf(r.Kind, obj, parentID)
	noteID(ctx, id)
	if st := obj.AzureStatus(); st.ID != "" && !strings.EqualFold(st.ID, id) {
		s := newState(ReasonInvalidSpec, fmt.Sprintf("the resource is %s in Azure but the spec now names %s: the name and owner cannot change; delete and recreate the object instead", st.ID, id))
		return armCalls{}, scope, "", &s, reconcile.Result{}
	}
	target, err := r.target(obj, id, scope)
	if err != nil {
		s := newState(tenancy.ReasonPolicyDenied, err.Error())
		return armCalls{}, scope, "", &s, reconcile.Result{}
	}
	for _, g := range r.Guards {
		if err := g.Admit(ctx, obj, target); err != nil {
			var reasoned interface{ Reason() string }
			if !errors.As(err, &reasoned) {
				// The guard could not decide: fail closed and try again.
				s := newState(ReasonGuardFailed, "could not check the request before calling Azure: "+err.Error())
				return armCalls{}, scope, "", &s, reconcile.Result{RequeueAfter: 30 * time.Second}
			}
			s := newState(reasoned.Reason(), err.Error())
			// Tenants change without touching this object: look again later.
			return armCalls{}, scope, "", &s, reconcile.Result{RequeueAfter: s.retryAfter(30*time.Second, 5*time.Minute)}
		}
	}
	if obj.GetDeletionTimestamp().IsZero() {
		if s := r.identityTerminating(ctx, obj); s != nil {
			return armCalls{}, scope, "", s, reconcile.Result{RequeueAfter: 5 * time.Minute}
		}
	}
	return armCalls{client: cl, apiVersion: r.Kind.APIVersion()}, scope, id, nil, reconcile.Result{}
}

// identityTerminating refuses creates and updates while the Identity serving
// obj is being deleted: it serves only deletions of what it created.
func (r *Reconciler) identityTerminating(ctx context.Context, obj azurev1alpha1.Resource) *state {
	name, err := identity.IdentityNameFor(obj)
	if err != nil {
		return nil // the broker has said so already
	}
	var id identityv1alpha1.Identity
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, &id); err != nil || id.DeletionTimestamp.IsZero() {
		return nil
	}
	kind := r.Registry.groupKindOf(r.Kind).Kind
	s := newState(ReasonIdentityTerminating, fmt.Sprintf("Identity %s/%s is being deleted and serves only deletions: %s %q is not created or updated in Azure. "+
		"The Identity waits for the namespace's resources that still hold it (its Ready condition lists them); "+
		"delete this object to delete its Azure resource, or annotate it %s: detach-on-delete to leave the resource in Azure",
		id.Namespace, id.Name, kind, obj.GetName(), AnnotationReconcilePolicy))
	return &s
}

// revoked reports the reasons of an Identity or Tenant being deleted, which
// serve deletions only.
func revoked(reason string) bool {
	return reason == ReasonIdentityTerminating || reason == tenancy.ReasonTenantTerminating
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
	if l, ok := r.Kind.(Located); ok {
		t.Location = l.Location(obj)
	}
	return t, nil
}

// parentID is the ARM ID of obj's parent: the subscription for resource groups,
// the owner's ID once the owner is Ready, or an unmanaged owner's armId.
func (r *Reconciler) parentID(ctx context.Context, obj azurev1alpha1.Resource, scope identity.Scope) (string, *state) {
	ref := obj.Owner()
	if ref != nil && ref.ARMID != "" {
		return strings.TrimSuffix(ref.ARMID, "/"), nil
	}
	ownerKind := r.ownerKindOf(obj)
	if ownerKind.Empty() {
		return "/subscriptions/" + scope.SubscriptionID, nil
	}
	if ref == nil || ref.Name == "" {
		s := newState(ReasonInvalidSpec, "spec.owner is required: name a "+ownerKind.Kind+" in this namespace")
		return "", &s
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
		s := newState(reason, err.Error())
		return "", &s
	}
	owner, err := r.Registry.newObject(ownerKind)
	if err != nil {
		s := newState(ReasonInvalidSpec, err.Error())
		return "", &s
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, owner); err != nil {
		s := newState(ReasonWaitingForOwner, fmt.Sprintf("waiting for %s %q in this namespace: %v", ownerKind.Kind, ref.Name, errorText(err)))
		return "", &s
	}
	// A child being deleted only needs its owner's ID: the owner itself may be
	// deleting (and so not Ready), waiting for its children to go first.
	deleting := !obj.GetDeletionTimestamp().IsZero()
	if (!isReady(owner) && !deleting) || owner.AzureStatus().ID == "" {
		msg := fmt.Sprintf("waiting for %s %q to be Ready", ownerKind.Kind, ref.Name)
		if !owner.GetDeletionTimestamp().IsZero() {
			// A new child of an owner on its way out would be deleted with it.
			msg = fmt.Sprintf("%s %q is being deleted: this object waits for an owner of that name that is not being deleted (delete this object, or create the owner again once it is gone)", ownerKind.Kind, ref.Name)
		} else if isReady(owner) {
			// Skipped (or released) before anything of it was in Azure.
			msg = fmt.Sprintf("waiting for %s %q to have a resource in Azure (its Ready reason is %s)", ownerKind.Kind, ref.Name, readyReason(owner))
		}
		s := newState(ReasonWaitingForOwner, msg)
		return "", &s
	}
	return owner.AzureStatus().ID, nil
}

func (r *Reconciler) ownerKindOf(obj azurev1alpha1.Resource) schema.GroupKind {
	if ok, has := obj.(interface{ OwnerGroupKind() schema.GroupKind }); has {
		// Some kinds (role assignments) let each object say what its owner is.
		return ok.OwnerGroupKind()
	}
	return r.Kind.OwnerKind()
}

// ensureOwnerReference points obj's metadata at its owner, so Kubernetes'
// garbage collector deletes children with their parent (and tools such as
// Argo CD show the tree). It is not a controller reference: the owner does not
// manage the child. It blocks the owner's deletion, so a foreground deletion
// (kubectl delete --cascade=foreground) ends with the owner, after its
// children, as Kubernetes documents it; the children's objects go without an
// ARM call of their own either way.
func (r *Reconciler) ensureOwnerReference(ctx context.Context, obj, before azurev1alpha1.Resource) error {
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
	if err := r.Client.Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		return err
	}
	r.writes.record(obj)
	before.SetOwnerReferences(obj.GetOwnerReferences())
	before.SetResourceVersion(obj.GetResourceVersion())
	return nil
}

func errorText(err error) string {
	if apierrors.IsNotFound(err) {
		return "it does not exist"
	}
	return err.Error()
}

// carryOnPut returns body with the paths the kind declares (Facts.CarriedOnPut)
// copied from actual where body lacks them, so a PUT keeps what Azure has
// there. body's maps are copied along each such path, not changed.
func carryOnPut(k Kind, body, actual map[string]any) map[string]any {
	d, ok := k.(Declarer)
	if !ok || actual == nil {
		return body
	}
	for _, path := range d.Facts().CarriedOnPut {
		keys := strings.Split(path, ".")
		v, found := any(actual), true
		for _, key := range keys {
			m, ok := v.(map[string]any)
			if v, found = m[key]; !ok || !found {
				found = false
				break
			}
		}
		if found {
			body = withPath(body, keys, v)
		}
	}
	return body
}

// withPath is a copy of m with v at keys unless m has a value there already.
func withPath(m map[string]any, keys []string, v any) map[string]any {
	if _, has := m[keys[0]]; has && len(keys) == 1 {
		return m
	}
	sub, isMap := m[keys[0]].(map[string]any)
	if _, has := m[keys[0]]; has && !isMap {
		return m
	}
	out := make(map[string]any, len(m)+1)
	for k, e := range m {
		out[k] = e
	}
	if len(keys) == 1 {
		out[keys[0]] = v
	} else {
		out[keys[0]] = withPath(sub, keys[1:], v)
	}
	return out
}

// desired builds the PUT body and normalises it through JSON, so numbers and
// nested types compare like ARM's decoded answers.
func (r *Reconciler) desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	var body map[string]any
	var err error
	if res, ok := r.Kind.(Resolver); ok {
		body, err = res.DesiredWith(obj, resolved)
	} else {
		body, err = r.Kind.Desired(obj)
	}
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

// poll advances a long-running operation once. Unfinished, its resume token
// goes into status so a restarted operator continues it instead of starting
// another.
func (r *Reconciler) poll(ctx context.Context, p *runtime.Poller[json.RawMessage], obj azurev1alpha1.Resource, scope identity.Scope, what string) (map[string]any, *state, reconcile.Result, bool) {
	st := obj.AzureStatus()
	if !p.Done() {
		if _, err := p.Poll(ctx); err != nil {
			s, res, _ := r.armFailure(err, scope)
			st.ResumeToken = ""
			st.WriteOnlyHash = "" // whether Azure took the write-only values is unknown: send them again
			return nil, s, res, false
		}
	}
	if !p.Done() {
		token, err := p.ResumeToken()
		if err == nil {
			st.ResumeToken = token
		}
		s := newState(ReasonReconciling, what+": waiting for Azure to finish")
		return nil, &s, reconcile.Result{RequeueAfter: r.PollInterval}, false
	}
	st.ResumeToken = ""
	raw, err := p.Result(ctx)
	if err != nil {
		s, res, _ := r.armFailure(err, scope)
		st.WriteOnlyHash = "" // the operation failed: Azure may not have the write-only values
		return nil, s, res, false
	}
	var body map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &body)
	}
	return body, nil, reconcile.Result{}, true
}

// resume continues the operation whose token is in status.
func (r *Reconciler) resume(ctx context.Context, calls armCalls, obj azurev1alpha1.Resource, scope identity.Scope) (*state, reconcile.Result, bool) {
	p, err := calls.resume(obj.AzureStatus().ResumeToken)
	if err != nil {
		obj.AzureStatus().ResumeToken = "" // unusable: fall back to GET and compare
		return nil, reconcile.Result{}, true
	}
	_, s, res, done := r.poll(ctx, p, obj, scope, "Resuming an operation on "+obj.AzureStatus().ID)
	return s, res, done
}

func (r *Reconciler) armFailure(err error, scope identity.Scope) (*state, reconcile.Result, error) {
	if fe := identity.AsFederationError(err, scope); identity.ReasonOf(fe) != "" {
		s := newState(identity.ReasonOf(fe), fe.Error())
		return &s, reconcile.Result{RequeueAfter: credentialRetry(identity.ReasonOf(fe))}, nil
	}
	c := classify(err, scope.ClientID)
	return &c.state, reconcile.Result{RequeueAfter: c.retryAfter}, nil
}

// terminalState reports a provisioningState no operation is running under
// (ARM's terminal states), or none reported.
func terminalState(ps string) bool {
	switch strings.ToLower(ps) {
	case "", "succeeded", "failed", "canceled":
		return true
	}
	return false
}

func provisioningState(body map[string]any) string {
	if p, ok := body["properties"].(map[string]any); ok {
		if s, ok := p["provisioningState"].(string); ok {
			return s
		}
	}
	return ""
}

func readyReason(obj azurev1alpha1.Resource) string {
	for _, c := range obj.AzureStatus().Conditions {
		if c.Type == ConditionReady {
			return c.Reason
		}
	}
	return ""
}

// isReady reports Ready=True for the current generation: Succeeded, or a
// policy that asks for nothing to be done (ReconcileSkipped, Released).
func isReady(obj azurev1alpha1.Resource) bool {
	for _, c := range obj.AzureStatus().Conditions {
		if c.Type == ConditionReady {
			return c.Status == "True" && c.ObservedGeneration == obj.GetGeneration()
		}
	}
	return false
}

// credentialRetry is when to try again after no token could be had: soon
// while Entra is unavailable (nothing needs fixing), in a minute when a fix
// is needed (the Identity's recovery also re-enqueues the object).
func credentialRetry(reason string) time.Duration {
	if reason == identity.ReasonEntraUnavailable {
		return jitter(15 * time.Second)
	}
	return time.Minute
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + time.Duration(rand.Int64N(int64(d)/10+1))
}

func (r *Reconciler) event(obj azurev1alpha1.Resource, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, typ, reason, "Reconcile", "%s", msg)
	}
}

func (r *Reconciler) addFinalizer(ctx context.Context, obj, before azurev1alpha1.Resource) error {
	if controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	controllerutil.AddFinalizer(obj, Finalizer)
	if err := r.Client.Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		return err
	}
	r.writes.record(obj)
	before.SetFinalizers(obj.GetFinalizers())
	before.SetResourceVersion(obj.GetResourceVersion())
	return nil
}

func (r *Reconciler) removeFinalizer(ctx context.Context, obj, before azurev1alpha1.Resource) error {
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	controllerutil.RemoveFinalizer(obj, Finalizer)
	if err := r.Client.Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		return client.IgnoreNotFound(err)
	}
	r.writes.record(obj)
	before.SetFinalizers(obj.GetFinalizers())
	before.SetResourceVersion(obj.GetResourceVersion())
	return nil
}

// patchStatus writes status only when it changed: a resync that finds nothing
// to do writes nothing.
func (r *Reconciler) patchStatus(ctx context.Context, before, after azurev1alpha1.Resource) error {
	if statusEqual(before, after) {
		return nil
	}
	err := r.Client.Status().Patch(ctx, after, client.MergeFrom(before))
	if err == nil {
		r.writes.record(after)
	}
	return client.IgnoreNotFound(err)
}

// statusEqual compares the objects' whole status stanzas, which hold
// kind-specific outputs beside the common part.
func statusEqual(a, b client.Object) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var ma, mb map[string]any
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	sa, _ := json.Marshal(ma["status"])
	sb, _ := json.Marshal(mb["status"])
	return string(sa) == string(sb)
}

// namespaceReader confines a Resolver to its object's namespace: references
// never cross namespaces.
type namespaceReader struct {
	client.Reader
	namespace string
}

func (n namespaceReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if key.Namespace != n.namespace {
		return fmt.Errorf("%s/%s is in another namespace than %s: references never cross namespaces", key.Namespace, key.Name, n.namespace)
	}
	return n.Reader.Get(ctx, key, obj, opts...)
}

func (n namespaceReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return n.Reader.List(ctx, list, append(opts, client.InNamespace(n.namespace))...)
}
