package reconcilers

import (
	"time"

	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
)

// This file is the one table of requeues: when an outcome that no event may
// end is looked at again. newOutcome takes the wait of its reason from
// waits, so no step writes a duration of its own. Three waits are not fixed
// and so not in the table: success looks again after the sync period (a
// listing's check time for a steady object), an operation still running in
// Azure after Reconciler.PollInterval, and a 429 or 5xx after ARM's
// Retry-After (its row here when ARM gives none).

// wait is when an outcome is looked at again without an event.
type wait struct {
	// after: looked at again then; 0, only on an event (a change of the
	// spec, of an object it reads, of its Tenant or Identity).
	after time.Duration
	// jitter adds up to a tenth at random, so many objects spread out.
	jitter bool
	// backoff: retried from after, doubling per object up to five minutes
	// (authBackoff), for failures Azure's environment ends without an event.
	backoff bool
}

var (
	never     = wait{}
	soon      = wait{after: 10 * time.Second, jitter: true}
	halfMin   = wait{after: 30 * time.Second, jitter: true}
	minute    = wait{after: time.Minute, jitter: true}
	fiveMin   = wait{after: 5 * time.Minute, jitter: true}
	backingOf = wait{after: authBackoffFirst, jitter: true, backoff: true}
)

// waits is the wait of each Ready reason (reasons.go); TestEveryReasonWaits
// holds it to readyReasons.
var waits = map[string]wait{
	// Success and the policies that ask for nothing: the sync period, or an event.
	ReasonSucceeded: never, ReasonReconcileSkipped: never, ReasonReleased: never, ReasonObserved: never,

	// In flight: the owner's watch ends a wait for it; an operation is polled.
	ReasonReconciling:     never, // PollInterval, set where the operation is seen
	ReasonWaitingForOwner: soon,
	ReasonDeleting:        wait{after: 5 * time.Second, jitter: true},

	// Retried failures.
	ReasonAzureUnavailable:            wait{after: 15 * time.Second, jitter: true}, // Retry-After when ARM gives one
	identity.ReasonEntraUnavailable:   wait{after: 15 * time.Second, jitter: true},
	identity.ReasonTokenRequestFailed: minute,
	ReasonGuardFailed:                 halfMin,
	ReasonExportFailed:                wait{after: 15 * time.Second, jitter: true},

	// The spec must change, which reconciles at once.
	ReasonInvalidSpec: never, ReasonAzureRejected: never, ReasonExpressionFailed: never,

	// The bounds (Tenant, constraints, policy) or the environment must change.
	// Tenants change without touching the objects they bound: a denial is
	// looked at again now and then.
	tenancy.ReasonCrossNamespace:             fiveMin,
	tenancy.ReasonPolicyDenied:               fiveMin,
	ReasonPolicyDenied:                       fiveMin,
	tenancy.ReasonNamespaceConflict:          fiveMin,
	ReasonIdentityTerminating:                fiveMin,
	tenancy.ReasonTenantTerminating:          fiveMin,
	ReasonAlreadyExists:                      never, // annotating it reconciles
	ReasonAuthorizationFailed:                backingOf,
	ReasonOwnedByAnother:                     minute, // its owner letting go reports no event here
	ReasonExportConflict:                     minute, // nor does the foreign Secret or ConfigMap going
	ReasonReferenceNotFound:                  soon,
	identity.ReasonInvalidIdentityReference:  minute,
	identity.ReasonServiceAccountNotReserved: minute,
	identity.ReasonIdentityNotFound:          minute,
	identity.ReasonServiceAccountNotFound:    minute,
	identity.ReasonMissingClientID:           minute,
	identity.ReasonMissingTenantID:           minute,
	identity.ReasonFederationRejected:        minute, // the federated credential in Azure
}

// Causes within a reason that wait otherwise (errors.go).
var (
	// An ARM call that got no answer at all.
	waitNoAnswer = halfMin
	// A write Azure refuses while another of the same kind is in flight
	// (ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity).
	waitConcurrentWrite = wait{after: 2 * time.Second, jitter: true}
	// A principal Entra has not replicated yet (PrincipalNotFound), which a
	// wrong ID never is: backing off.
	waitNotReplicated = backingOf
	// A 409 that is not a concurrency: a name taken, a lock.
	waitConflict = minute
)

// waitBlockedDeletion is the Delete mode's row: a deletion that cannot go on
// now, with a reason that would wait only for an event, is tried again,
// backing off (what blocks it often goes by itself: a subnet's users being
// deleted with theirs, a lock lifted).
var waitBlockedDeletion = wait{after: 5 * time.Second, jitter: true, backoff: true}

// waitFor is the wait of a reason; one missing from the table waits for an
// event (TestEveryReasonWaits fails first).
func waitFor(reason string) wait { return waits[reason] }

// duration is the wait's first RequeueAfter.
func (w wait) duration() time.Duration {
	if w.jitter {
		return jitter(w.after)
	}
	return w.after
}

// waiting sets when o is looked at again to w.
func (o *Outcome) waiting(w wait) *Outcome {
	o.RequeueAfter, o.Backoff = w.duration(), w.backoff
	return o
}
