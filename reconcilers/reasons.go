package reconcilers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
)

// Class is what a Ready reason tells users and tools (kstatus, so kubectl
// wait, Argo CD and Flux health checks) about what comes next.
type Class string

const (
	// ClassSucceeded: nothing is left to do. Ready=True, no Reconciling or
	// Stalled; kstatus Current.
	ClassSucceeded Class = "Succeeded"
	// ClassTransient: work is in flight, or a failure that ends by itself is
	// being retried. Reconciling=True, Ready Unknown (in flight) or False (a
	// retried failure); kstatus InProgress.
	ClassTransient Class = "Transient"
	// ClassTerminal: only a change of the spec or of the environment (a role
	// in Azure, an Identity, a Secret, a Tenant, another object letting go)
	// ends it. Stalled=True, Ready=False; kstatus Failed. The operator still
	// looks again (on the watch that reports the change, or with backoff when
	// no event does, as for a role granted in Azure), so fixing the
	// environment is enough.
	ClassTerminal Class = "Terminal"
)

// KStatus is the kstatus verdict an object with a reason of this class
// gets: Current, InProgress or Failed.
func (c Class) KStatus() string {
	switch c {
	case ClassSucceeded:
		return "Current"
	case ClassTransient:
		return "InProgress"
	}
	return "Failed"
}

// ReasonClass is one Ready reason of an Azure-backed object with its class.
type ReasonClass struct {
	Reason string
	Class  Class
	// Ready is the Ready condition's status with this reason: True for
	// ClassSucceeded, False for ClassTerminal, Unknown or False for
	// ClassTransient.
	Ready metav1.ConditionStatus
}

// More reasons of the Ready condition, set by the generic reconciler.
const (
	// ReasonReconcileSkipped: aztenant.io/reconcile-policy is skip; Azure is
	// neither read nor written.
	ReasonReconcileSkipped = "ReconcileSkipped"
	// ReasonPolicyDenied is policy.ReasonPolicyDenied (the policy library's
	// denials) and the reason of a RoleAssignment naming a privileged custom
	// role (kinds.ReasonPolicyDenied).
	ReasonPolicyDenied = "PolicyDenied"
)

func succeeded(r string) ReasonClass { return ReasonClass{r, ClassSucceeded, metav1.ConditionTrue} }
func inFlight(r string) ReasonClass  { return ReasonClass{r, ClassTransient, metav1.ConditionUnknown} }
func retried(r string) ReasonClass   { return ReasonClass{r, ClassTransient, metav1.ConditionFalse} }
func terminal(r string) ReasonClass  { return ReasonClass{r, ClassTerminal, metav1.ConditionFalse} }

// readyReasons is every reason the operator sets on the Ready condition of
// an Azure-backed object, its own and those it copies from the identity,
// tenancy and policy packages' errors, with its class. The code that writes
// conditions (Outcome.apply) takes the class from here, so a reason
// cannot be written with another; the reason table of docs/conditions.md is
// tested against this list (TestConditionsPageReasonTable).
var readyReasons = []ReasonClass{
	succeeded(ReasonSucceeded),
	// The policy asks for nothing to be done, and nothing is: kstatus has no
	// "skipped", and Ready=True is what keeps kubectl wait --for=condition=Ready
	// and Flux or Argo CD health from waiting for a reconcile that by design
	// never comes. Children are not held back by a skipped owner whose Azure
	// ID is known.
	succeeded(ReasonReconcileSkipped),
	// Asked for (aztenant.io/release), and done: the object writes nothing
	// more; as for ReconcileSkipped, nothing is left to wait for.
	succeeded(ReasonReleased),
	// Observed (reconcile policy observe): read, compared, nothing written;
	// the InSync condition says whether Azure matches.
	succeeded(ReasonObserved),

	inFlight(ReasonReconciling),
	// The owner is being created or becoming Ready; its watch reconciles the
	// child the moment it is.
	inFlight(ReasonWaitingForOwner),
	inFlight(ReasonDeleting),
	// Throttling, ARM 5xx, a concurrent write Azure refuses for a moment:
	// retried honouring Retry-After.
	retried(ReasonAzureUnavailable),
	// Entra ID 5xx or 429: retried every 10-15 s.
	retried(identity.ReasonEntraUnavailable),
	// The API server's TokenRequest failed; retried.
	retried(identity.ReasonTokenRequestFailed),
	// A check before the ARM call could not be made (fails closed); retried.
	retried(ReasonGuardFailed),
	// Writing an export or reading its keys from Azure failed; retried.
	retried(ReasonExportFailed),

	// The spec is wrong: only a change of it helps.
	terminal(ReasonInvalidSpec),
	terminal(ReasonAzureRejected),
	// CEL compile and runtime errors (no such key, a wrong type) alike: the
	// expression must change (a runtime error that depends on Azure's
	// answer is evaluated again at every sync).
	terminal(ReasonExpressionFailed),
	terminal(tenancy.ReasonCrossNamespace),
	terminal(identity.ReasonInvalidIdentityReference),
	terminal(identity.ReasonServiceAccountNotReserved),
	// The spec, the Tenant or a constraint must change.
	terminal(tenancy.ReasonPolicyDenied),
	terminal(ReasonPolicyDenied),
	terminal(tenancy.ReasonNamespaceConflict),
	// The environment must change; the operator looks again (watches, or
	// backoff where no event tells it).
	terminal(ReasonAlreadyExists),             // annotate aztenant.io/adopt
	terminal(ReasonAuthorizationFailed),       // a role in Azure; retried from 5 s, doubling to 5 min
	terminal(ReasonOwnedByAnother),            // the owner lets go; retried every minute
	terminal(ReasonExportConflict),            // the foreign Secret/ConfigMap goes; retried every minute
	terminal(ReasonReferenceNotFound),         // the Secret or ConfigMap appears (watched)
	terminal(identity.ReasonIdentityNotFound), // onboarding (Identities are watched)
	terminal(identity.ReasonServiceAccountNotFound),
	terminal(identity.ReasonMissingClientID),
	terminal(identity.ReasonMissingTenantID),
	terminal(identity.ReasonFederationRejected), // the federated credential in Azure; retried every minute
	// The Identity or Tenant is being deleted and serves deletions only: the
	// object must be deleted or detached.
	terminal(ReasonIdentityTerminating),
	terminal(tenancy.ReasonTenantTerminating),
}

var reasonIndex = func() map[string]ReasonClass {
	m := make(map[string]ReasonClass, len(readyReasons))
	for _, rc := range readyReasons {
		if _, dup := m[rc.Reason]; dup {
			panic("reconcilers: Ready reason listed twice: " + rc.Reason)
		}
		m[rc.Reason] = rc
	}
	return m
}()

// ReadyReasons returns every Ready reason of an Azure-backed object with its
// class, in the order of docs/conditions.md's table.
func ReadyReasons() []ReasonClass { return append([]ReasonClass(nil), readyReasons...) }

// ClassOf returns a reason's class. A reason missing from the list (a bug
// TestEveryReasonIsClassified catches) is terminal: a person should look.
func ClassOf(reason string) ReasonClass {
	if rc, ok := reasonIndex[reason]; ok {
		return rc
	}
	return terminal(reason)
}
