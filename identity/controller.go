package identity

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
)

// Condition vocabulary of the Identity kind.
const (
	ConditionReady  = "Ready"
	ReasonExchanged = "TokenExchanged"
)

// Controller keeps each Identity's status true: it resolves the ServiceAccount,
// performs a real exchange with Entra ID, and reports the principal or the reason
// it cannot. It also drops cached credentials when an Identity or ServiceAccount
// changes.
type Controller struct {
	Client   client.Client
	Broker   *Broker
	Cloud    Cloud
	Recorder events.EventRecorder
	// Resync is how often a Ready Identity is checked again (default 30m); a
	// rejected one is retried after RetryRejected (default 1m), since the fix
	// (a federated credential in Azure) produces no Kubernetes event.
	Resync        time.Duration
	RetryRejected time.Duration
	// RetryUnavailable (default 10s, plus up to half again of jitter) is the
	// retry while Entra answers 5xx or 429: nothing needs fixing, and the
	// namespace's resources wait on this Identity, so recovery should not
	// wait a full minute; the jitter spreads many Identities' retries.
	RetryUnavailable time.Duration
	// Workers is how many Identities are checked at once (default 4): an
	// exchange against an unreachable Entra takes seconds of retries.
	Workers int
	// InUse, when set, turns on protection: the Identity and its
	// ServiceAccount keep a finalizer while resources of the namespace may
	// still need them.
	InUse InUseFunc
	// Platform is the platform team's Identity (in the operator's namespace),
	// which federates with the operator's own ServiceAccount rather than a
	// reserved provisioner account; it serves onboarding only.
	Platform types.NamespacedName
}

// SetupWithManager registers the controller.
func (c *Controller) SetupWithManager(mgr ctrl.Manager) error {
	if c.Resync == 0 {
		c.Resync = 30 * time.Minute
	}
	if c.RetryRejected == 0 {
		c.RetryRejected = time.Minute
	}
	if c.RetryUnavailable == 0 {
		c.RetryUnavailable = 10 * time.Second
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.InUse != nil {
		if err := c.setupServiceAccountRelease(mgr); err != nil {
			return err
		}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("identity").
		WithOptions(controller.Options{MaxConcurrentReconciles: c.Workers}).
		For(&identityv1alpha1.Identity{}, builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
			return !statusOnly(e.ObjectOld, e.ObjectNew)
		}})).
		Watches(&corev1.ServiceAccount{}, handler.Funcs{
			CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				c.serviceAccountChanged(ctx, e.Object, q)
			},
			UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				switch {
				case federationChanged(e.ObjectOld, e.ObjectNew):
					c.serviceAccountChanged(ctx, e.ObjectNew, q)
				case e.ObjectOld.GetDeletionTimestamp().IsZero() && !e.ObjectNew.GetDeletionTimestamp().IsZero():
					// Deleted, held by the protection finalizer: release it
					// now if no resource needs it (the credential still works).
					c.enqueueNaming(ctx, e.ObjectNew, q)
				}
			},
			DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				c.serviceAccountChanged(ctx, e.Object, q)
			},
		}).
		Complete(c)
}

// statusOnly reports an update that changed nothing but status, such as the
// controller's own status write: reconciling it again would only repeat the
// check that wrote it (and, were the status to differ each time, loop).
func statusOnly(old, new client.Object) bool {
	return old.GetGeneration() == new.GetGeneration() &&
		old.GetDeletionTimestamp().Equal(new.GetDeletionTimestamp()) &&
		slices.Equal(old.GetFinalizers(), new.GetFinalizers()) &&
		maps.Equal(old.GetLabels(), new.GetLabels()) &&
		maps.Equal(old.GetAnnotations(), new.GetAnnotations())
}

// federationChanged reports an update to what a ServiceAccount federates as:
// its workload-identity annotations or the object itself (recreated). Other
// updates, such as the protection finalizer this controller adds, must keep
// the cached credential: dropping it costs a new exchange with Entra.
func federationChanged(old, new client.Object) bool {
	return old.GetUID() != new.GetUID() ||
		old.GetAnnotations()[AnnotationClientID] != new.GetAnnotations()[AnnotationClientID] ||
		old.GetAnnotations()[AnnotationTenantID] != new.GetAnnotations()[AnnotationTenantID]
}

// serviceAccountChanged forgets what was cached for the ServiceAccount (it
// names another identity, appeared or was deleted) and re-checks the
// Identities naming it.
func (c *Controller) serviceAccountChanged(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	c.Broker.Credentials().Forget(obj.GetNamespace(), obj.GetName())
	c.enqueueNaming(ctx, obj, q)
}

// enqueueNaming re-checks the Identities naming the ServiceAccount obj.
func (c *Controller) enqueueNaming(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	var ids identityv1alpha1.IdentityList
	if err := c.Client.List(ctx, &ids, client.InNamespace(obj.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing Identities after a ServiceAccount change; they are checked again at their next resync", "serviceAccount", client.ObjectKeyFromObject(obj))
		return
	}
	for _, id := range ids.Items {
		if id.Spec.ServiceAccountName == obj.GetName() {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&id)})
		}
	}
}

// The operator's permissions for identities. Each line says why it is needed.
//
// Read Identities and report their status:
// +kubebuilder:rbac:groups=identity.aztenant.io,resources=identities,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=identity.aztenant.io,resources=identities/status,verbs=get;patch
// Read ServiceAccounts for their workload-identity annotations, notice changes,
// and keep a protection finalizer on them while resources need them (patch):
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;patch
// Mint short-lived tokens for tenants' ServiceAccounts (the Helm chart can narrow
// this to listed ServiceAccount names with resourceNames):
// +kubebuilder:rbac:groups="",resources=serviceaccounts/token,verbs=create
// Tell users what happened to their objects:
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile implements reconcile.Reconciler. Its span carries the outcome
// (the Ready reason, error status when not Ready) with the exchange as a
// child.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ctx, span := tracer.Start(ctx, SpanReconcile, trace.WithAttributes(
		attribute.String(AttrNamespace, req.Namespace), attribute.String(AttrName, req.Name)))
	defer span.End()
	var id identityv1alpha1.Identity
	res, err := c.reconcile(ctx, req, &id)
	traceIdentity(span, outcomeOf(&id), err)
	return res, err
}

// outcomeOf reads the outcome of a reconcile from the Identity's status;
// nil when it has no Ready condition (it was not found).
func outcomeOf(id *identityv1alpha1.Identity) *readyOutcome {
	c := meta.FindStatusCondition(id.Status.Conditions, ConditionReady)
	if c == nil {
		return nil
	}
	return &readyOutcome{ok: c.Status == metav1.ConditionTrue, reason: c.Reason, message: c.Message,
		clientID: id.Status.ClientID, tenantID: id.Status.TenantID, principalID: id.Status.PrincipalID}
}

func (c *Controller) reconcile(ctx context.Context, req reconcile.Request, id *identityv1alpha1.Identity) (reconcile.Result, error) {
	if err := c.Client.Get(ctx, req.NamespacedName, id); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var requeue reconcile.Result
	if c.InUse != nil {
		done, res, err := c.protect(ctx, id)
		if done || err != nil {
			return res, err
		}
		requeue = res
	}
	before := id.DeepCopy()
	res, err := c.resolve(ctx, id)
	if err != nil {
		if ReasonOf(err) == "" {
			return reconcile.Result{}, err // the API server failed us: retry with backoff
		}
		c.setNotReady(id, err)
		return reconcile.Result{}, c.patchStatus(ctx, before, id)
	}
	if id.Status.ClientID != "" && (id.Status.ClientID != res.ClientID || id.Status.TenantID != res.TenantID) {
		c.Broker.Credentials().Forget(res.Namespace, res.ServiceAccount)
	}
	id.Status.ClientID, id.Status.TenantID = res.ClientID, res.TenantID

	cred, err := c.Broker.Credentials().For(res)
	if err != nil {
		return reconcile.Result{}, err
	}
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{c.Cloud.ARMScope()}, EnableCAE: true})
	if err != nil {
		err = AsFederationError(err, scopeOf(res))
		if ReasonOf(err) == "" {
			err = errorf(ReasonTokenRequestFailed, err, "could not obtain a token for ServiceAccount %s/%s: %v", res.Namespace, res.ServiceAccount, err)
		}
		c.setNotReady(id, err)
		retry := c.RetryRejected
		if ReasonOf(err) == ReasonEntraUnavailable {
			retry = c.RetryUnavailable + rand.N(c.RetryUnavailable/2+1)
		}
		return reconcile.Result{RequeueAfter: retry}, c.patchStatus(ctx, before, id)
	}
	// EnableCAE above matches what ARM clients ask for: azidentity caches CAE and
	// non-CAE tokens apart, and sharing one cache keeps one exchange per lifetime.
	principal := PrincipalOf(tok.Token)
	changed := meta.SetStatusCondition(&id.Status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonExchanged, ObservedGeneration: id.Generation,
		Message: "ServiceAccount " + res.ServiceAccount + " exchanged its token with Entra ID for principal " + principal,
	})
	if changed || id.Status.PrincipalID != principal || id.Status.LastExchangeTime == nil {
		now := metav1.Now()
		id.Status.LastExchangeTime = &now
		if changed {
			c.event(id, corev1.EventTypeNormal, ReasonExchanged, "Federation works: acting as principal %s in tenant %s", principal, res.TenantID)
		}
	}
	id.Status.PrincipalID = principal
	id.Status.ObservedGeneration = id.Generation
	if requeue.RequeueAfter == 0 {
		requeue.RequeueAfter = c.Resync
	}
	return requeue, c.patchStatus(ctx, before, id)
}

// resolve completes the Identity as the broker would for its resources: the
// reserved-account rule first, except for the platform's own Identity.
func (c *Controller) resolve(ctx context.Context, id *identityv1alpha1.Identity) (*Resolved, error) {
	if client.ObjectKeyFromObject(id) != c.Platform {
		if err := CheckReserved(id, c.Broker.UnreservedAllowed()); err != nil {
			return nil, err
		}
	}
	return ResolveIdentity(ctx, c.Client, id)
}

func (c *Controller) setNotReady(id *identityv1alpha1.Identity, err error) {
	reason := ReasonOf(err)
	if meta.SetStatusCondition(&id.Status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: err.Error(), ObservedGeneration: id.Generation,
	}) {
		c.event(id, corev1.EventTypeWarning, reason, "%s", err.Error())
	}
	id.Status.ObservedGeneration = id.Generation
}

func (c *Controller) event(id *identityv1alpha1.Identity, typ, reason, note string, args ...any) {
	if c.Recorder != nil {
		c.Recorder.Eventf(id, nil, typ, reason, "Reconcile", note, args...)
	}
}

// patchStatus writes the status only when it changed, so a resync of a healthy
// Identity costs no write.
func (c *Controller) patchStatus(ctx context.Context, before, after *identityv1alpha1.Identity) error {
	if equality.Semantic.DeepEqual(before.Status, after.Status) {
		return nil
	}
	err := c.Client.Status().Patch(ctx, after, client.MergeFrom(before))
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
