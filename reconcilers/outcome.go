package reconcilers

import (
	"errors"
	"math/rand/v2"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aztenant/aztenant/identity"
)

// Outcome is how a reconcile of an Azure-backed object ends: the reason and
// message of its Ready condition, and when the object is looked at again.
//
// It is an error, so that each step of the flow returns just an error: nil
// to go on, an *Outcome to end the reconcile there, or any other error (the
// API server failed), which goes to controller-runtime and is retried with
// its backoff. Success is an Outcome too (ReasonSucceeded): every reconcile
// that reaches a verdict ends in one, and Reconcile alone turns it into the
// conditions, an event, a log line and the requeue.
//
// The Ready status and the Reconciling and Stalled conditions are not the
// outcome's to choose: they follow from its reason's class (readyReasons,
// reasons.go), so no outcome is written with another class than its
// reason's.
type Outcome struct {
	Reason  string
	Message string
	// RequeueAfter > 0: the object is looked at again then. 0: only an event
	// (a change of the spec, of an object it reads, of its Tenant) reconciles
	// it again; see Terminal.
	RequeueAfter time.Duration
	// Backoff: Azure's environment may end it without an event (a role
	// granted, a principal replicated), so it is retried from seconds,
	// doubling per object (authBackoff), instead of after RequeueAfter.
	Backoff bool
	// cause is the error the outcome was classified from (an ARM response),
	// for errors.As.
	cause error
}

// newOutcome is the outcome of a reason, looked at again when its reason's
// row of the requeue table says (requeue.go).
func newOutcome(reason, msg string) *Outcome {
	return (&Outcome{Reason: reason, Message: msg}).waiting(waitFor(reason))
}

// readyOutcome is success, compared with Azure again after period (jittered).
func readyOutcome(period time.Duration) *Outcome {
	return newOutcome(ReasonSucceeded, "The resource is provisioned and matches its spec").after(jitter(period))
}

// after sets when the object is looked at again, for the waits the requeue
// table cannot hold (requeue.go): the sync period, PollInterval, Retry-After.
func (o *Outcome) after(d time.Duration) *Outcome {
	o.RequeueAfter = d
	return o
}

func (o *Outcome) Error() string { return o.Reason + ": " + o.Message }

// Unwrap returns the error the outcome was classified from, if any.
func (o *Outcome) Unwrap() error { return o.cause }

// Is matches an *Outcome target of the same reason, or any outcome when the
// target's reason is empty: errors.Is(err, &Outcome{Reason: ReasonInvalidSpec}).
func (o *Outcome) Is(target error) bool {
	t, ok := target.(*Outcome)
	return ok && (t.Reason == "" || t.Reason == o.Reason)
}

// Class is the reason's class.
func (o *Outcome) Class() ReasonClass { return ClassOf(o.Reason) }

// Ready is the Ready condition's status the outcome writes.
func (o *Outcome) Ready() metav1.ConditionStatus { return o.Class().Ready }

// Terminal reports an outcome nothing but an event ends, as
// controller-runtime's reconcile.TerminalError: it is not requeued. (Its
// class, and so Stalled, is another question: AuthorizationFailed is
// Stalled and retried with backoff.)
func (o *Outcome) Terminal() bool { return o.RequeueAfter == 0 && !o.backsOff() }

// backsOff reports an outcome retried with the per-object backoff; every
// AuthorizationFailed is.
func (o *Outcome) backsOff() bool { return o.Backoff || o.Reason == ReasonAuthorizationFailed }

// outcomeOf is the *Outcome in err's chain, or nil.
func outcomeOf(err error) *Outcome {
	var o *Outcome
	if errors.As(err, &o) {
		return o
	}
	return nil
}

// errGone says the object no longer exists (its finalizer was removed).
var errGone = errors.New("object gone")

// armFailure is the outcome of a failed ARM call: a token the broker could
// not get (a federation failure), or an ARM answer classified (errors.go).
func (r *Reconciler) armFailure(err error, scope identity.Scope) *Outcome {
	if fe := identity.AsFederationError(err, scope); identity.ReasonOf(fe) != "" {
		o := newOutcome(identity.ReasonOf(fe), fe.Error())
		o.cause = err
		return o
	}
	return classify(err, scope.ClientID)
}

// jitter adds up to a tenth of d at random, so requeues spread out.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + time.Duration(rand.Int64N(int64(d)/10+1))
}
