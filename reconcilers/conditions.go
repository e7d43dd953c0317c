package reconcilers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Condition types, kstatus compatible so Argo CD and Flux read health.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)

// Reasons of the Ready condition set by the generic reconciler. Identity and
// tenancy reasons (IdentityNotFound, FederationRejected, TenantPolicyDenied,
// CrossNamespaceReference ...) are copied from those packages' errors. Each
// has its class in readyReasons (reasons.go).
const (
	ReasonSucceeded           = "Succeeded"
	ReasonReconciling         = "Reconciling"
	ReasonWaitingForOwner     = "WaitingForOwner"
	ReasonAlreadyExists       = "AlreadyExists"
	ReasonAuthorizationFailed = "AuthorizationFailed"
	ReasonAzureRejected       = "AzureRejected"
	ReasonAzureUnavailable    = "AzureUnavailable"
	ReasonDeleting            = "Deleting"
	ReasonExportConflict      = "ExportConflict"
	ReasonExportFailed        = "ExportFailed"
	ReasonExpressionFailed    = "ExpressionFailed"
	ReasonGuardFailed         = "GuardFailed"
	ReasonInvalidSpec         = "InvalidSpec"
	// ReasonReferenceNotFound: a Secret, key or object the spec refers to
	// (such as an administrator password) is missing from the namespace.
	ReasonReferenceNotFound = "ReferenceNotFound"
	// ReasonIdentityTerminating: the Identity serving the object is being
	// deleted; it serves only deletions, nothing is created or updated.
	ReasonIdentityTerminating = "IdentityTerminating"
	// ReasonOwnedByAnother: the Azure resource carries another aztenant
	// object's owner marker or was created by onboarding; it is neither
	// adopted nor written, and deleting the object leaves it in Azure.
	ReasonOwnedByAnother = "OwnedByAnother"
	// ReasonReleased: the object carries aztenant.io/release "true" and
	// writes nothing to its resource, which another object may adopt.
	ReasonReleased = "Released"
)

// state is the outcome of one reconcile, written into the three conditions.
// Its Ready status and flags follow from its reason's class (readyReasons):
// build it with newState.
type state struct {
	ready   metav1.ConditionStatus
	reason  string
	message string
	// stalled: only a change of spec or environment can help (ClassTerminal);
	// reconciling: work is in flight or being retried (ClassTransient).
	stalled, reconciling bool
	// backoff: Azure's environment may end it without an event (a role
	// granted, a principal replicated), so it is retried from seconds,
	// doubling (see authBackoff), instead of at a fixed period.
	backoff bool
}

// newState is the state of a reason, with the Ready status and flags of its
// class.
func newState(reason, msg string) state {
	rc := ClassOf(reason)
	return state{ready: rc.Ready, reason: reason, message: msg,
		stalled: rc.Class == ClassTerminal, reconciling: rc.Class == ClassTransient}
}

func readyState() state {
	return newState(ReasonSucceeded, "The resource is provisioned and matches its spec")
}

// failed and inProgress are newState under their former names (delete.go
// uses them): the class, and so Stalled, comes from the reason, whatever
// the third argument says.
func failed(reason, msg string, _ bool) state { return newState(reason, msg) }

func inProgress(reason, msg string) state { return newState(reason, msg) }

// retryAfter is when to look again at an object left in s when the caller
// has no better time: soon for a transient state, after terminalAfter for a
// terminal one (a change of spec reconciles at once; this is for changes no
// event reports).
func (s state) retryAfter(transient, terminalAfter time.Duration) time.Duration {
	if s.reconciling {
		return jitter(transient)
	}
	return jitter(terminalAfter)
}

// apply records s on obj. It reports whether the Ready condition changed (for events).
func (s state) apply(obj azurev1alpha1.Resource) bool {
	s = newState(s.reason, s.message) // the class is the reason's, however s was built
	st := obj.AzureStatus()
	gen := obj.GetGeneration()
	changed := meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: ConditionReady, Status: s.ready, Reason: s.reason, Message: s.message, ObservedGeneration: gen,
	})
	setFlag(&st.Conditions, ConditionReconciling, s.reconciling, s.reason, s.message, gen)
	setFlag(&st.Conditions, ConditionStalled, s.stalled, s.reason, s.message, gen)
	st.ObservedGeneration = gen
	return changed
}

// setFlag keeps an abnormal-true condition present only while it holds, as
// kstatus expects.
func setFlag(conds *[]metav1.Condition, typ string, on bool, reason, msg string, gen int64) {
	if !on {
		meta.RemoveStatusCondition(conds, typ)
		return
	}
	meta.SetStatusCondition(conds, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: gen})
}
