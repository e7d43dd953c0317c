package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
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

// Reconciler is the generic ARM reconciler of one Kind. The package doc
// (doc.go) describes its trust model and its flow, which this file reads in
// order: Reconcile, conclude, reconcile and its steps.
type Reconciler struct {
	Client   client.Client
	Kind     Kind
	Registry *Registry
	Broker   Broker
	Guards   []Guard
	// ReferenceGuard bounds the other resources a request names (references.go);
	// nil checks none.
	ReferenceGuard ReferenceGuard
	Recorder       events.EventRecorder
	// Expressions evaluates spec.operatorSpec CEL exports (shared by all kinds:
	// each expression compiles once).
	Expressions *expressions.Evaluator
	// SyncPeriod is how often an unchanged resource is compared with Azure to
	// correct drift; a tenth of it is added at random so resyncs spread out.
	SyncPeriod time.Duration
	// SecretRefreshPeriod is how long secret outputs read from Azure (keys,
	// with a POST) are trusted before they are read again (secretsread.go);
	// 24h when zero.
	SecretRefreshPeriod time.Duration
	DefaultPolicy       Policy
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
	// GetDriftChecks reads every object by GET at each drift check instead of
	// comparing a collection's objects with one listing (lists.go).
	GetDriftChecks bool
	// Owns, when set (--shards), says whether this replica may act on a
	// namespace now. A request it does not own is dropped before anything
	// is read or called: its cache should not hold such an object, but a
	// label changed out of band, or a shard being handed over, must not
	// let two replicas act on one namespace.
	Owns func(namespace string) bool
	// NameGuard bounds the names in a request that Azure turns into resources
	// or destinations (names.go); nil checks none.
	NameGuard NameGuard

	writes    lastWrites
	lists     listings
	auth      authBackoff
	asoWarned sync.Map // aso.go
}

// Reconcile implements reconcile.Reconciler. It reads the object, runs the
// flow (reconcile, or delete for an object being deleted) to its Outcome,
// records the outcome (conclude), and writes what changed of the object
// (patcher). Any other error is the API server's, returned to
// controller-runtime, which retries it with its backoff.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if r.Owns != nil && !r.Owns(req.Namespace) {
		ctrl.LoggerFrom(ctx).V(1).Info("namespace of another shard: not reconciled here")
		return reconcile.Result{}, nil
	}
	kind := r.Registry.groupKindOf(r.Kind).Kind
	ctx, span := tracer.Start(ctx, "Reconcile "+kind, trace.WithAttributes(
		attribute.String("k8s.namespace.name", req.Namespace), attribute.String("aztenant.name", req.Name)))
	defer span.End()
	ctx = withNotes(withLabels(ctx, kind, req.Namespace))
	// Every line of this reconcile, the broker's included, names the kind
	// (controller-runtime's logger names the namespace and name).
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("kind", kind))
	obj, err := r.read(ctx, req.NamespacedName)
	if obj == nil {
		return reconcile.Result{}, err
	}
	r.warnASO(obj)
	p := r.newPatcher(obj)
	tr := traceReconcile(span, obj)
	err = r.reconcile(ctx, obj, p)
	if errors.Is(err, errGone) {
		tr.end(ctx, obj, nil, reconcile.Result{}, err)
		r.auth.reset(req.NamespacedName)
		r.lists.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	var result reconcile.Result
	o := outcomeOf(err)
	if o != nil {
		result, err = r.conclude(ctx, req.NamespacedName, obj, o), nil
	}
	// Whatever the reconcile changed and has not written yet (status, mostly).
	if perr := p.patch(ctx, obj); perr != nil && err == nil {
		err = perr
	}
	tr.end(ctx, obj, o, result, err)
	return result, err
}

// conclude records an outcome on obj (its conditions, an event when Ready
// changed, a log line) and says when to look at obj again: after the
// outcome's RequeueAfter, or at the object's next backoff step (backoff.go).
func (r *Reconciler) conclude(ctx context.Context, key types.NamespacedName, obj azurev1alpha1.Resource, o *Outcome) reconcile.Result {
	result := reconcile.Result{RequeueAfter: o.RequeueAfter}
	if o.backsOff() {
		result.RequeueAfter = r.auth.next(key)
		r.hintNewGroup(obj, o)
	} else {
		r.auth.reset(key)
	}
	changed := o.apply(obj)
	if changed {
		typ := corev1.EventTypeNormal
		if o.Ready() == metav1.ConditionFalse {
			typ = corev1.EventTypeWarning
		}
		r.event(obj, typ, o.Reason, o.Message)
	}
	r.logOutcome(ctx, obj, o, changed)
	return result
}

// reconcile runs the flow of the package doc for obj. It ends in an
// *Outcome, in errGone once the finalizer of an object being deleted is
// removed, or in another error when the API server failed.
func (r *Reconciler) reconcile(ctx context.Context, obj azurev1alpha1.Resource, p *patcher) error {
	policy, err := r.policyFor(ctx, obj)
	var invalid *invalidPolicyError
	switch {
	case errors.As(err, &invalid):
		return newOutcome(ReasonInvalidSpec, err.Error())
	case err != nil:
		// Not known: in particular, nothing is deleted in Azure on a policy
		// that could not be read.
		return err
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.delete(ctx, obj, policy, p)
	}
	if policy != PolicyObserve {
		notObserved(obj)
	}
	if o := leftAlone(obj, policy); o != nil {
		// Nothing in Azure is the object's to delete any more: the finalizer
		// goes with the patch that ends the reconcile, before the status.
		controllerutil.RemoveFinalizer(obj, Finalizer)
		return o
	}
	period, err := r.syncPeriod(obj)
	if err != nil {
		return newOutcome(ReasonInvalidSpec, err.Error())
	}
	if policy == PolicyObserve {
		return r.observe(ctx, obj, period)
	}
	calls, scope, id, err := r.prepare(ctx, obj)
	if o := outcomeOf(err); o != nil && revoked(o.Reason) && obj.AzureStatus().ID == "" {
		// Nothing of it is in Azure: it must not hold back the Identity or
		// Tenant being deleted.
		if err := p.removeFinalizer(ctx, obj); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	b, err := r.build(ctx, obj)
	if err != nil {
		return err
	}
	if o := r.admitReferences(ctx, obj, b.desired); o != nil {
		return o
	}
	if o := r.admitNames(ctx, obj, id, b.desired); o != nil {
		return o
	}
	if err := r.verify(ctx, calls, obj, id, scope); err != nil {
		return err
	}
	// Before anything is written to Azure (or status.id), so nothing the
	// object creates can outlive it.
	if err := p.addFinalizer(ctx, obj); err != nil {
		return err
	}
	if err := r.ensureOwnerReference(ctx, obj, p); err != nil {
		return err
	}
	if obj.AzureStatus().ResumeToken != "" {
		if err := r.resume(ctx, calls, obj, scope); err != nil {
			return err
		}
	}
	actual, from, err := r.current(ctx, obj, calls, scope, id, period)
	if err != nil {
		return r.armFailure(err, scope)
	}
	if from.at.IsZero() {
		r.record(ctx, obj, b, actual) // a GET: Azure's answer to a write, if not recorded yet (keeps.go)
	}
	// plan completes the desired body in place (tags, the owner marker):
	// kept aside for a second plan on what a GET says.
	var pristine map[string]any
	if !from.at.IsZero() {
		pristine = cloneJSON(b.desired).(map[string]any)
	}
	c, err := r.claimAndPlan(ctx, obj, b, id, actual)
	if !from.at.IsZero() && (err != nil || c.diff != "") {
		b = built{desired: pristine, secrets: b.secrets}
		// A listing only says all is well: what is acted on is read by GET.
		from = listed{}
		at := time.Now()
		if actual, err = calls.get(ctx, id); err != nil {
			return r.armFailure(err, scope)
		}
		r.lists.checkedAt(obj, at)
		r.record(ctx, obj, b, actual)
		c, err = r.claimAndPlan(ctx, obj, b, id, actual)
	}
	if err != nil {
		return err
	}
	c.listed = from
	if c.diff != "" {
		if actual, err = r.write(ctx, obj, p, calls, scope, c, actual); err != nil {
			return err
		}
	}
	return r.settle(ctx, obj, calls, c, actual, period)
}

// current is the resource as Azure has it (nil: none), from a listing of
// its collection when obj is steady (lists.go), else by GET.
func (r *Reconciler) current(ctx context.Context, obj azurev1alpha1.Resource, calls armCalls, scope identity.Scope, id string, period time.Duration) (map[string]any, listed, error) {
	if body, l, ok := r.fromList(ctx, obj, calls, scope, id, period); ok && body != nil {
		r.lists.checkedAt(obj, l.at)
		return body, l, nil
	}
	at := time.Now()
	actual, err := calls.get(ctx, id)
	if err == nil {
		r.lists.checkedAt(obj, at)
	}
	return actual, listed{}, err
}

// cloneJSON copies a JSON-shaped value (maps, slices and scalars).
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneJSON(e)
		}
		return out
	default:
		return v
	}
}

// claimAndPlan is claim, then plan on what claim leaves.
func (r *Reconciler) claimAndPlan(ctx context.Context, obj azurev1alpha1.Resource, b built, id string, actual map[string]any) (change, error) {
	createdFor, err := r.claim(ctx, obj, id, actual)
	if err != nil {
		return change{}, err
	}
	return r.plan(ctx, obj, b, id, actual, createdFor)
}

// claim decides whether the resource Azure has (actual; nil when there is
// none) is obj's to write: not when another object or onboarding owns it;
// yes when obj created it (status.id), when onboarding created it for obj,
// or once it is adopted. It returns the resource's TagCreatedFor.
func (r *Reconciler) claim(ctx context.Context, obj azurev1alpha1.Resource, id string, actual map[string]any) (string, error) {
	st := obj.AzureStatus()
	if actual != nil {
		// Before adopting or writing: a resource another object (or
		// onboarding) owns is not this object's to manage.
		who, err := r.ownerOf(ctx, obj, id, actual, false)
		if err != nil {
			return "", newOutcome(ReasonGuardFailed, "could not check who owns the resource before writing to it: "+err.Error()).after(30 * time.Second)
		}
		if who != "" {
			// The owner letting go produces no event here: look again later.
			return "", newOutcome(ReasonOwnedByAnother, fmt.Sprintf("%s is owned by %s. This object does not adopt it or write to it, and deleting this object leaves it in Azure", id, who)).after(time.Minute)
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

// change is what the spec asks of Azure, and where Azure differs.
type change struct {
	id      string
	desired map[string]any
	// specTags are the tag names the spec manages, tagged whether the kind
	// has tags; dropped are those to remove (names that left the spec).
	specTags, dropped []string
	tagged            bool
	// woHash is the digest of the write-only values (writeonly.go).
	woHash string
	// diff is the first path where Azure differs, "(absent)" when it has no
	// resource, "" when it matches.
	diff string
	// listed is the listing Azure's state was read from (zero: a GET).
	listed listed
	// secrets are the values Hooks.Resolve read (never shown, digested with a key).
	secrets []string
	// kept are the paths where Azure differs from desired as it answered the
	// last write (status.azureKeeps): in sync, not in diff. keptBefore are
	// the record's paths before this reconcile writes (keeps.go).
	kept       []difference
	keptBefore []string
}

// built is the desired body with what it was built from.
type built struct {
	desired map[string]any
	// secrets are the values Hooks.Resolve read (Secrets', other objects' IDs),
	// which status.azureKeeps never shows.
	secrets []string
}

// build makes the desired body, with the Secrets and objects Hooks.Resolve
// reads, before any ARM call: the references in it are checked first.
func (r *Reconciler) build(ctx context.Context, obj azurev1alpha1.Resource) (built, error) {
	var resolved map[string]string
	if resolve := r.Kind.Hooks().Resolve; resolve != nil {
		var err error
		if resolved, err = resolve(ctx, namespaceReader{r.Client, obj.GetNamespace()}, obj); err != nil {
			return built{}, newOutcome(ReasonReferenceNotFound, err.Error()).after(10 * time.Second)
		}
	}
	desired, err := r.desired(obj, resolved)
	if err != nil {
		return built{}, newOutcome(ReasonInvalidSpec, err.Error())
	}
	return built{desired: desired, secrets: slices.Collect(maps.Values(resolved))}, nil
}

// plan compares the desired body with Azure's (compare.go).
func (r *Reconciler) plan(ctx context.Context, obj azurev1alpha1.Resource, b built, id string, actual map[string]any, createdFor string) (change, error) {
	facts, hooks := r.Kind.Facts(), r.Kind.Hooks()
	desired := b.desired
	c := change{id: id, desired: desired, secrets: b.secrets, keptBefore: keptNames(obj.AzureStatus().AzureKeeps)}
	c.specTags, c.dropped, c.tagged = r.applyTags(obj, desired)
	if createdFor != "" && c.tagged {
		// Good for the first time only: a later object of the same name
		// must adopt.
		c.dropped = append(c.dropped, TagCreatedFor)
	}
	ignore, digested := facts.WriteOnly, digestedPaths(facts)
	if len(digested) > 0 { // only kinds with write-only or unanswered values read the key's Secrets
		var refs []Reference
		if hooks.References != nil {
			refs = hooks.References(obj)
		}
		c.woHash = writeOnlyHash(writeOnlyKey(ctx, namespaceReader{r.Client, obj.GetNamespace()}, obj, refs), desired, digested)
	}
	c.diff = "(absent)"
	if actual != nil {
		c.diff = driftWith(desired, actual, ignore, facts, hooks.Equivalent)
		if c.diff != "" {
			// Only where the comparison finds a difference: Azure's known
			// answer to this spec is no difference (keeps.go).
			c.diff, c.kept = r.consult(ctx, obj, b.secrets, desired, actual, c.diff)
		}
		if c.diff == "" {
			c.diff = droppedTag(actual, c.dropped)
		}
		if c.diff == "" && c.woHash != "" && c.woHash != obj.AzureStatus().WriteOnlyHash {
			// ARM never returns write-only values: a digest other than the one
			// last written (a rotated password, or none known) is the drift.
			c.diff = writeOnlyPaths(desired, digested) + " (write-only or not answered, not the value last written)"
		}
	}
	return c, nil
}

// write PUTs the desired body and polls the operation (operation.go); it
// returns the resource as Azure has it once the operation is done.
func (r *Reconciler) write(ctx context.Context, obj azurev1alpha1.Resource, p *patcher, calls armCalls, scope identity.Scope, c change, actual map[string]any) (map[string]any, error) {
	st := obj.AzureStatus()
	switch {
	case actual == nil && st.ID == "":
		// Record the ID before creating: if the operator dies after the PUT,
		// the next attempt knows the resource is its own, not a stranger to adopt.
		st.ID = c.id
		newOutcome(ReasonReconciling, "Creating "+c.id).apply(obj)
		if err := p.patchStatus(ctx, obj); err != nil {
			return nil, err
		}
		r.decide(ctx, obj, DecisionCreate)
	case actual != nil:
		r.event(obj, corev1.EventTypeNormal, "Updating", fmt.Sprintf("Azure differs from the spec at %s: updating", c.diff))
		r.decide(ctx, obj, DecisionUpdate, "diff", c.diff)
	default:
		// Recorded but missing in Azure (deleted outside aztenant): created again.
		r.decide(ctx, obj, DecisionCreate, "diff", c.diff)
	}
	// A PUT replaces every tag: keep those the spec does not manage.
	poller, err := calls.put(ctx, c.id, carryOnPut(r.Kind, mergeTags(c.desired, actual, c.dropped), actual))
	if err != nil {
		return nil, r.armFailure(err, scope)
	}
	// Azure has the values now; recorded with a resume token, the digest
	// stays true of the operation a restarted operator resumes.
	st.WriteOnlyHash = c.woHash
	// Its answer is recorded once the operation is done (settle, or record).
	r.startRecord(ctx, obj, c)
	body, err := r.poll(ctx, poller, obj, scope, "Writing "+c.id)
	if err != nil || body != nil {
		return body, err
	}
	if body, err = calls.get(ctx, c.id); err != nil {
		return nil, r.armFailure(err, scope)
	}
	return body, nil
}

// settle records in status what Azure has (Kind.Observe), waits for an
// operation still running there, and writes the exports (export.go): then
// the resource is Ready, and compared with Azure again after the sync
// period.
func (r *Reconciler) settle(ctx context.Context, obj azurev1alpha1.Resource, calls armCalls, c change, actual map[string]any, period time.Duration) error {
	st := obj.AzureStatus()
	st.ID = c.id
	st.WriteOnlyHash = c.woHash // unchanged, or "" once the spec has no write-only value
	if c.tagged {
		st.ManagedTags = c.specTags // written (or already there): the names to remove once they leave the spec
	}
	if actual != nil {
		r.Kind.Observe(obj, actual)
		st.ProvisioningState = provisioningState(actual)
	}
	if ps := st.ProvisioningState; !terminalState(ps) {
		// An operation is still running in Azure (ours, seen before its resume
		// token, or someone else's): the resource is not Ready until it ends.
		return newOutcome(ReasonReconciling, fmt.Sprintf("Azure reports provisioningState %s for %s: waiting for it to finish", ps, c.id)).after(r.PollInterval)
	}
	if actual != nil && c.listed.at.IsZero() {
		if k := st.AzureKeeps; k != nil && k.Written != "" {
			// Azure's answer to a write of this reconcile, from the operation's
			// final body (or its GET): the common case, no extra read.
			r.learn(ctx, obj, c.secrets, c.desired, actual, c.keptBefore)
		} else {
			r.prune(ctx, obj, c, actual)
		}
	}
	keep, o := r.export(ctx, obj, calls, c.id)
	if o != nil {
		return o.after(exportRetry(o, period))
	}
	if keep > 0 && keep < period {
		// The secret outputs are due before the next sync.
		return keptReady(obj, readyOutcome(keep))
	}
	if !c.listed.at.IsZero() {
		return keptReady(obj, readyOutcome(period).after(nextCheck(c.listed, period)))
	}
	return keptReady(obj, readyOutcome(period))
}

// keptReady adds to Ready's message how many paths Azure keeps its own way.
func keptReady(obj azurev1alpha1.Resource, o *Outcome) *Outcome {
	o.Message += keptNote(obj)
	return o
}
