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

// apply records o on obj: the Ready condition with o's reason and message,
// and Reconciling or Stalled as the reason's class says (kstatus keeps those
// present only while they hold). It reports whether the Ready condition
// changed (for events).
func (o *Outcome) apply(obj azurev1alpha1.Resource) bool {
	rc := o.Class()
	st := obj.AzureStatus()
	gen := obj.GetGeneration()
	changed := meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: ConditionReady, Status: rc.Ready, Reason: o.Reason, Message: o.Message, ObservedGeneration: gen,
	})
	setFlag(&st.Conditions, ConditionReconciling, rc.Class == ClassTransient, o.Reason, o.Message, gen)
	setFlag(&st.Conditions, ConditionStalled, rc.Class == ClassTerminal, o.Reason, o.Message, gen)
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

// IsReady reports Ready=True for the current generation: Succeeded, or a
// policy that asks for nothing to be done (ReconcileSkipped, Released).
func IsReady(obj azurev1alpha1.Resource) bool {
	for _, c := range obj.AzureStatus().Conditions {
		if c.Type == ConditionReady {
			return c.Status == "True" && c.ObservedGeneration == obj.GetGeneration()
		}
	}
	return false
}
