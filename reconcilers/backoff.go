package reconcilers

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Backoff for AuthorizationFailed (and a principal not yet replicated, see
// Outcome.Backoff): a role granted in Azure reports no event
// the operator could watch, and a grant usually follows within seconds (an
// onboarding step, a platform engineer's `az role assignment create`), so
// the first retry comes in seconds and the wait doubles up to a ceiling
// instead of a flat five minutes. A change of the object, its Identity or its
// Tenant (onboarding included) reconciles it at once anyway.
const (
	authBackoffFirst = 5 * time.Second
	authBackoffMax   = 5 * time.Minute
)

// authBackoff counts, per object, the reconciles in a row that ended in an
// outcome with backoff (AuthorizationFailed, PrincipalNotFound), with
// client-go's per-item exponential rate limiter, and adds jitter. It lives in
// memory: after a restart the count starts again at the first step, which
// only makes the next retry sooner. The zero value is ready to use.
type authBackoff struct {
	once sync.Once
	rl   workqueue.TypedRateLimiter[types.NamespacedName]
}

func (b *authBackoff) limiter() workqueue.TypedRateLimiter[types.NamespacedName] {
	b.once.Do(func() {
		b.rl = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](authBackoffFirst, authBackoffMax)
	})
	return b.rl
}

// next returns how long to wait after another AuthorizationFailed of key.
func (b *authBackoff) next(key types.NamespacedName) time.Duration {
	return jitter(b.limiter().When(key))
}

// reset forgets key's failures: it got past authorization, or is gone.
func (b *authBackoff) reset(key types.NamespacedName) { b.limiter().Forget(key) }

// resourceGroupType is the ARM type whose creation a namespace's identity
// usually may not do itself (its roles are on resource groups, not above).
const resourceGroupType = "Microsoft.Resources/resourceGroups"

// newGroupHint says, for a resource group the identity may not read or
// create, which role on which scope a new one needs, and the other way to
// get it (the role is at the subscription, which ARM's message does not say:
// it names the group's own scope).
// hintNewGroup adds newGroupHint to a refusal to read or write a resource
// group the object has not created yet.
func (r *Reconciler) hintNewGroup(obj azurev1alpha1.Resource, o *Outcome) {
	if o.backsOff() && obj.GetDeletionTimestamp().IsZero() && strings.EqualFold(r.Kind.Facts().ResourceType, resourceGroupType) && obj.AzureStatus().ID == "" {
		o.Message += "; " + newGroupHint(o.Message)
	}
}

func newGroupHint(msg string) string {
	sub := "the subscription"
	if m := subscriptionInMessage.FindStringSubmatch(msg); m != nil {
		sub = "/subscriptions/" + m[1]
	}
	return "a new resource group needs Microsoft.Resources/subscriptions/resourceGroups/write on " + sub +
		" (a role such as Contributor there), or a Tenant with onboarding, which creates the groups its resourceGroups allow with the platform identity (see the Tenant's status.onboarding)"
}

var subscriptionInMessage = regexp.MustCompile(`(?i)/subscriptions/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
