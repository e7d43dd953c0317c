package reconcilers

import (
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
// CrossNamespaceReference ...) are copied from those packages' errors.
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
type state struct {
	ready   metav1.ConditionStatus
	reason  string
	message string
	// stalled: only a spec change can help; reconciling: work is in flight.
	stalled, reconciling bool
}

func readyState() state {
	return state{ready: metav1.ConditionTrue, reason: ReasonSucceeded, message: "The resource is provisioned and matches its spec"}
}

func failed(reason, msg string, stalled bool) state {
	return state{ready: metav1.ConditionFalse, reason: reason, message: msg, stalled: stalled}
}

func inProgress(reason, msg string) state {
	return state{ready: metav1.ConditionUnknown, reason: reason, message: msg, reconciling: true}
}

// apply records s on obj. It reports whether the Ready condition changed (for events).
func (s state) apply(obj azurev1alpha1.Resource) bool {
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
