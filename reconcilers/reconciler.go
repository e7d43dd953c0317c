package reconcilers

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
// (doc.go) describes its trust model and its flow, which this file holds:
// Reconcile, conclude, and the pipeline of steps every mode runs.
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
	// Settings are the operator's, the same for every kind.
	Settings
	// APIReader, when set, reads an object from the API server when the cached
	// copy may predate this reconciler's last write to it (see lastWrites).
	APIReader client.Reader
	// ClusterID identifies the cluster in the owner marker (TagOwner) of the
	// resources this reconciler creates or adopts: the kube-system
	// namespace's UID by default.
	ClusterID string
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
	err = r.run(ctx, &run{mode: modeManage, obj: obj, patch: p})
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

// step is one named step of the pipeline. It returns nil to go on, or an
// error to stop there: an *Outcome (success included), errGone, or the API
// server's error.
type step struct {
	name  string
	modes mode
	do    func(*Reconciler, context.Context, *run) error
	// blocks: in modeDelete, a stop here means the deletion cannot go on now
	// (blocked, delete.go), and is retried as a blocked deletion.
	blocks bool
}

// pipeline is the flow of the package doc, in order, for every mode: a guard
// added to a step is met by each mode that runs it (TestAGuardAddedOnceMeetsEveryMode).
var pipeline = []step{
	{"policy", allModes, (*Reconciler).stepPolicy, false},        // policy.go
	{"deletion", modeDelete, (*Reconciler).stepDeletion, false},  // delete.go: left in Azure, or with the owner
	{"credential", allModes, (*Reconciler).stepCredential, true}, // prepare.go
	{"parent", allModes, (*Reconciler).stepParent, true},
	{"armID", allModes, (*Reconciler).stepARMID, true},
	{"admit", allModes, (*Reconciler).stepAdmit, true},
	{"identity", notDelete, (*Reconciler).stepIdentity, false},
	{"build", notDelete, (*Reconciler).stepBuild, false},                // desired.go
	{"references", notDelete, (*Reconciler).stepReferences, false},      // references.go
	{"names", notDelete, (*Reconciler).stepNames, false},                // names.go
	{"verify", notDelete, (*Reconciler).stepVerify, false},              // verify.go
	{"finalizer", modeManage, (*Reconciler).stepFinalizer, false},       // prepare.go, with the owner reference
	{"resume", modeManage | modeDelete, (*Reconciler).stepResume, true}, // operation.go
	{"read", allModes, (*Reconciler).stepRead, true},                    // read.go
	{"record", notDelete, (*Reconciler).stepRecord, false},              // keeps.go
	{"claim", allModes, (*Reconciler).stepClaim, false},                 // ownership.go
	{"plan", notDelete, (*Reconciler).stepPlan, false},                  // plan.go
	{"act", allModes, (*Reconciler).stepAct, false},                     // write.go, observing.go, preview.go, delete.go
}

// errReadAgain rewinds the pipeline to the read step, once: a listing only
// says all is well; what is acted on is read by GET.
var errReadAgain = errors.New("read again by GET")

// run runs the pipeline for x to its end.
func (r *Reconciler) run(ctx context.Context, x *run) error {
	for i := 0; i < len(pipeline); i++ {
		s := pipeline[i]
		if x.mode&s.modes == 0 {
			continue
		}
		err := s.do(r, ctx, x)
		if errors.Is(err, errReadAgain) && !x.byGET {
			x.byGET, x.from = true, listed{}
			x.body.desired = x.pristine
			i = slices.IndexFunc(pipeline, func(s step) bool { return s.name == "read" }) - 1
			continue
		}
		if err != nil {
			return r.stopped(ctx, x, s, err)
		}
	}
	return nil
}

// stopped is what a stop at step s means beyond its outcome.
func (r *Reconciler) stopped(ctx context.Context, x *run, s step, err error) error {
	switch o := outcomeOf(err); {
	case x.mode == modeDelete && s.blocks:
		return r.blocked(ctx, x.obj, err)
	case x.mode == modeManage && o != nil && revoked(o.Reason) && x.obj.AzureStatus().ID == "":
		// Nothing of it is in Azure: it must not hold back the Identity or
		// Tenant being deleted.
		if err := x.patch.removeFinalizer(ctx, x.obj); err != nil {
			return err
		}
	}
	return err
}
