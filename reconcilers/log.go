package reconcilers

import (
	"context"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
)

// Decisions are logged at Info, one line each, with the object's namespace,
// name (from controller-runtime's logger), kind, ARM ID and the principal
// acting (client ID, and the principal's object ID once its Identity has
// exchanged). Everything else (a resync that finds nothing to do, a state
// repeated) is V(1). No line carries a value of the spec or of Azure's
// answer: only paths, IDs and reasons, so never a secret, a key or a token.

// Decisions, the messages of their log lines.
const (
	DecisionCreate = "create"
	DecisionUpdate = "update"
	DecisionAdopt  = "adopt"
	DecisionDeny   = "deny"
	DecisionFail   = "fail"
	DecisionDelete = "delete"
	DecisionDetach = "detach"
	// DecisionReadSecrets is a read of the secret outputs from Azure (an ARM
	// action, a POST), with why it was due (package exports).
	DecisionReadSecrets = "read-secrets"
)

// reconcileNotes is what one reconcile has learnt for its log lines.
type reconcileNotes struct {
	armID, clientID, identity string
}

type notesKey struct{}

func withNotes(ctx context.Context) context.Context {
	return context.WithValue(ctx, notesKey{}, &reconcileNotes{})
}

func notesOf(ctx context.Context) *reconcileNotes {
	if n, ok := ctx.Value(notesKey{}).(*reconcileNotes); ok {
		return n
	}
	return &reconcileNotes{}
}

// noteScope records the principal a reconcile acts as.
func noteScope(ctx context.Context, s identity.Scope) {
	n := notesOf(ctx)
	if s.ClientID != "" {
		n.clientID = s.ClientID
	}
	if s.Identity != "" {
		n.identity = s.Identity
	}
}

// noteID records the ARM ID a reconcile works on.
func noteID(ctx context.Context, id string) {
	if id != "" {
		notesOf(ctx).armID = id
	}
}

// logger is the reconcile's logger with obj's kind, ARM ID and principal.
func (r *Reconciler) logger(ctx context.Context, obj azurev1alpha1.Resource) logr.Logger {
	n := notesOf(ctx)
	id := n.armID
	if id == "" {
		id = obj.AzureStatus().ID
	}
	kv := []any{"armID", id}
	if n.identity == "" {
		n.identity, _ = identity.IdentityNameFor(obj)
	}
	if n.identity != "" {
		kv = append(kv, "identity", n.identity)
		var ident identityv1alpha1.Identity
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: n.identity}, &ident); err == nil {
			if n.clientID == "" {
				n.clientID = ident.Status.ClientID
			}
			if ident.Status.PrincipalID != "" {
				kv = append(kv, "principalID", ident.Status.PrincipalID)
			}
		}
	}
	if n.clientID != "" {
		kv = append(kv, "clientID", n.clientID)
	}
	return ctrl.LoggerFrom(ctx).WithValues(kv...)
}

// decide logs a decision at Info, and adds it to the reconcile's span.
func (r *Reconciler) decide(ctx context.Context, obj azurev1alpha1.Resource, decision string, kv ...any) {
	traceDecision(ctx, decision, kv...)
	r.logger(ctx, obj).Info(decision, kv...)
}

// event records an event on obj, when the reconciler has a recorder.
func (r *Reconciler) event(obj azurev1alpha1.Resource, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, typ, reason, "Reconcile", "%s", msg)
	}
}

// logOutcome logs the outcome a reconcile leaves obj in: a refusal or failure
// at Info when it is new, V(1) otherwise (a repeated state, a resync that
// finds nothing to do, work in flight).
func (r *Reconciler) logOutcome(ctx context.Context, obj azurev1alpha1.Resource, o *Outcome, changed bool) {
	refused := o.Ready() == metav1.ConditionFalse
	if !(refused && changed) && !ctrl.LoggerFrom(ctx).V(1).Enabled() {
		return // a quiet operator stays quiet, without looking anything up
	}
	log := r.logger(ctx, obj)
	if !refused {
		log.V(1).Info("reconciled", "reason", o.Reason, "changed", changed)
		return
	}
	msg, by := DecisionFail, deniedBy(o.Reason)
	kv := []any{"reason", o.Reason, "message", o.Message}
	if by != "" {
		msg = DecisionDeny
		kv = append(kv, "by", by)
	}
	if !changed {
		log = log.V(1)
	}
	log.Info(msg, kv...)
}

// deniedBy names who refused a request with this reason, or "" for a reason
// that is no refusal.
func deniedBy(reason string) string {
	switch reason {
	case ReasonPolicyDenied:
		return "policy" // the policy library's constraints
	case tenancy.ReasonPolicyDenied, tenancy.ReasonCrossNamespace, tenancy.ReasonNamespaceConflict, tenancy.ReasonTenantTerminating:
		return "tenant"
	case identity.ReasonFederationRejected, identity.ReasonIdentityNotFound, identity.ReasonServiceAccountNotFound,
		identity.ReasonServiceAccountNotReserved, identity.ReasonMissingClientID, identity.ReasonMissingTenantID,
		identity.ReasonInvalidIdentityReference, ReasonIdentityTerminating:
		return "identity"
	case ReasonAuthorizationFailed:
		return "azure"
	case ReasonOwnedByAnother, ReasonAlreadyExists:
		return "owner"
	}
	return ""
}
