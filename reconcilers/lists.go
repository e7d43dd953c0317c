package reconcilers

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
)

// Drift checks by list. A Ready object is compared with Azure once per sync
// period; with a GET each, the reads grow with the fleet, against a read
// budget ARM keeps per principal. A collection (the resources of one type in
// one resource group, or the children of one parent) is listed instead, in
// one call and its pages, and every object of the collection that the same
// principal serves is compared with that listing:
//
//   - an object is steady when it is Ready for its generation, has its ID and
//     no operation in flight; only steady objects use listings, anything that
//     changed is read by GET as before;
//   - an object whose check is due compares with the collection's listing if
//     it has not compared with that one yet and it is younger than
//     maxListAge; otherwise it lists the collection again and wakes the
//     collection's other members, which compare with the new listing at once,
//     so a collection's checks come due together after the next period (with
//     a jitter of the collection's own, spreading collections, not their
//     members);
//   - an object looked at before it is due, with its annotations as at its
//     last check, compares with the listing it last compared with, if it is
//     still kept: an earlier timer of its own (the work queue keeps the
//     earliest) or an event that needs no new read of Azure. A changed
//     annotation (a user asking for a resync, aztenant.io/refresh-secrets)
//     reads by GET;
//   - the listing is only a filter: when it differs from the spec (paths
//     Azure keeps its own way aside, as plan consults status.azureKeeps;
//     keeps.go), or does not have the object, the object is read by GET and
//     the reconcile goes on from what the GET says, so nothing is written on
//     a listing's word, and nothing is recorded from it;
//   - a listing keeps only its members' items, as raw JSON, and only for
//     maxListAge: a principal that sees every resource group of a
//     subscription lists them all, but holds only its own;
//   - a collection type whose list fails (some child types have no list) is
//     read by GET for listRetry before a list is tried again.
//
// A restart reconciles every object at once, which is when a fleet's checks
// are first gathered into their collections' listings.
type listings struct {
	mu      sync.Mutex
	colls   map[listKey]*collection
	checked map[types.NamespacedName]check
	noList  map[string]time.Time // collection type (lower case) → until when it is not listed
	wake    func([]types.NamespacedName)
}

const (
	// maxListAge is how long a listing is kept and used: long enough for
	// the woken members of a big collection to reach it behind other work,
	// short enough that a drift is seen about one period after it happened.
	maxListAge = 2 * time.Minute
	// listRetry is how long a collection type whose list failed is read by
	// GET instead.
	listRetry = time.Hour
)

// check is an object's last comparison with Azure: when its state was read,
// and a digest of its annotations then.
type check struct {
	at          time.Time
	annotations uint64
}

func annotationsDigest(obj azurev1alpha1.Resource) uint64 {
	a := obj.GetAnnotations()
	keys := slices.Sorted(maps.Keys(a))
	h := fnv.New64a()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(a[k]))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// listKey is a collection as one principal sees it: a listing shows only
// what the principal may read.
type listKey struct{ tenantID, clientID, collection string }

type collection struct {
	// fetch is held while the collection is listed: the members due together
	// wait for the one listing rather than each making its own.
	fetch   sync.Mutex
	mu      sync.Mutex
	fetched time.Time
	items   map[string][]byte // lower-case ID → the item as listed, members' only
	// members are the objects that compared with the collection, by their
	// lower-case ARM IDs.
	members map[types.NamespacedName]string
}

// item is a member's body in the listing (nil: not in it), if the listing
// is younger than maxAge.
func (c *collection) item(id string, now time.Time, maxAge time.Duration) (map[string]any, bool) {
	if c.fetched.IsZero() || now.Sub(c.fetched) >= maxListAge {
		c.items = nil // not used any more: dropped
		return nil, false
	}
	if now.Sub(c.fetched) >= maxAge {
		return nil, false
	}
	raw, ok := c.items[id]
	if !ok {
		return nil, true
	}
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return nil, true
	}
	return body, true
}

// listed is when, and of which collection, the listing an object was
// compared with was made (zero: it was read by GET).
type listed struct {
	at         time.Time
	collection string
}

// collectionOf is the collection an ARM ID is listed in, and the type the
// collection lists; "" for an ID with no name to strip.
func collectionOf(id string) (coll, typ string) {
	i := strings.LastIndexByte(id, '/')
	if i <= 0 {
		return "", ""
	}
	coll = id[:i]
	segs := strings.Split(strings.Trim(coll, "/"), "/")
	// The type is what follows the last "providers" segment, without the
	// names between its parts; resource groups are their own type.
	p := -1
	for j, s := range segs {
		if strings.EqualFold(s, "providers") {
			p = j
		}
	}
	if p < 0 {
		return coll, strings.ToLower(segs[len(segs)-1])
	}
	parts := []string{segs[p+1]}
	for j := p + 2; j < len(segs); j += 2 {
		parts = append(parts, segs[j])
	}
	return coll, strings.ToLower(strings.Join(parts, "/"))
}

// steady reports whether obj may be compared with a listing: Ready for its
// generation, its ID recorded as id, no operation to resume, and no write
// whose answer is still to be recorded (a GET records it: keeps.go).
func steady(obj azurev1alpha1.Resource, id string) bool {
	st := obj.AzureStatus()
	pending := st.AzureKeeps != nil && st.AzureKeeps.Written != ""
	return IsReady(obj) && st.ResumeToken == "" && !pending && strings.EqualFold(st.ID, id)
}

// fromList returns obj's resource from a listing of its collection, or ok
// false when it is to be read by GET (not steady, looked at early with no
// listing kept, a type without a list, a failed list). A nil body with ok
// true is "not in the listing": the caller reads it by GET too.
func (r *Reconciler) fromList(ctx context.Context, obj azurev1alpha1.Resource, calls armclient.Calls, scope identity.Scope, id string, period time.Duration) (map[string]any, listed, bool) {
	if r.GetDriftChecks || !steady(obj, id) {
		return nil, listed{}, false
	}
	coll, typ := collectionOf(id)
	if coll == "" {
		return nil, listed{}, false
	}
	id = strings.ToLower(id)
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	now := time.Now()
	l := &r.lists
	l.mu.Lock()
	if until, ok := l.noList[typ]; ok && now.Before(until) {
		l.mu.Unlock()
		return nil, listed{}, false
	}
	lk := listKey{scope.TenantID, scope.ClientID, strings.ToLower(coll)}
	c := l.colls[lk]
	if c == nil {
		if l.colls == nil {
			l.colls = map[listKey]*collection{}
		}
		c = &collection{members: map[types.NamespacedName]string{}}
		l.colls[lk] = c
	}
	last, seen := l.checked[key]
	due := !seen || now.Sub(last.at) >= period
	l.mu.Unlock()
	// A due object takes a listing younger than half its period, so a drift
	// is still seen within about one period (short periods: tests).
	fresh := min(maxListAge, period/2)

	at := func() listed { return listed{at: c.fetched, collection: lk.collection} }
	c.mu.Lock()
	c.members[key] = id
	switch {
	case due && c.fetched.After(last.at):
		// A listing this object has not compared with yet (it was woken by it,
		// or came due just after it).
		if body, ok := c.item(id, now, fresh); ok {
			defer c.mu.Unlock()
			return body, at(), true
		}
	case !due:
		// Early: the listing it compared with last, if its annotations say
		// nothing new.
		if !c.fetched.Before(last.at) && last.annotations == annotationsDigest(obj) {
			if body, ok := c.item(id, now, maxListAge); ok {
				defer c.mu.Unlock()
				return body, at(), true
			}
		}
		c.mu.Unlock()
		return nil, listed{}, false
	}
	c.mu.Unlock()

	// Due, and no listing it can use: list, once for the members waiting.
	c.fetch.Lock()
	defer c.fetch.Unlock()
	c.mu.Lock()
	if c.fetched.After(last.at) { // listed while this one waited
		if body, ok := c.item(id, time.Now(), fresh); ok {
			defer c.mu.Unlock()
			return body, at(), true
		}
	}
	c.mu.Unlock()
	if err := r.list(ctx, calls, c, coll, key); err != nil {
		ctrl.LoggerFrom(ctx).V(1).Info("listing failed: read by GET", "collection", coll, "error", err.Error())
		l.mu.Lock()
		if ctx.Err() == nil {
			if l.noList == nil {
				l.noList = map[string]time.Time{}
			}
			l.noList[typ] = now.Add(listRetry)
		}
		l.mu.Unlock()
		return nil, listed{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	body, _ := c.item(id, time.Now(), maxListAge)
	return body, at(), true
}

// list fetches a collection's listing, keeps its members' items and wakes
// the other members.
func (r *Reconciler) list(ctx context.Context, calls armclient.Calls, c *collection, coll string, self types.NamespacedName) error {
	at := time.Now()
	items, err := calls.List(ctx, coll)
	if err != nil {
		return err
	}
	// The namespace's other objects of the kind in the collection are
	// members from the first listing on: they compare with it at once rather
	// than each reading by GET when its own check comes due.
	found := r.membersIn(ctx, self.Namespace, coll)
	c.mu.Lock()
	for k, id := range found {
		if _, ok := c.members[k]; !ok {
			c.members[k] = id
		}
	}
	ids := make(map[string]bool, len(c.members))
	var others []types.NamespacedName
	for k, id := range c.members {
		ids[id] = true
		if k != self {
			others = append(others, k)
		}
	}
	c.mu.Unlock()
	kept := make(map[string][]byte, len(ids))
	for _, raw := range items {
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &head) == nil {
			if id := strings.ToLower(head.ID); ids[id] {
				kept[id] = raw
			}
		}
	}
	c.mu.Lock()
	c.items, c.fetched = kept, at
	c.mu.Unlock()
	r.lists.mu.Lock()
	wake := r.lists.wake
	r.lists.mu.Unlock()
	if wake != nil && len(others) > 0 {
		wake(others)
	}
	return nil
}

// membersIn are the objects of the kind in namespace ns (from the cache)
// whose resource is in collection coll, by their lower-case IDs.
func (r *Reconciler) membersIn(ctx context.Context, ns, coll string) map[types.NamespacedName]string {
	list, err := r.Registry.NewList(r.Kind)
	if err != nil {
		return nil
	}
	if err := r.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	out := map[types.NamespacedName]string{}
	_ = meta.EachListItem(list, func(item runtime.Object) error {
		res, ok := item.(azurev1alpha1.Resource)
		if !ok {
			return nil
		}
		if id := res.AzureStatus().ID; id != "" {
			if c, _ := collectionOf(id); strings.EqualFold(c, coll) {
				out[client.ObjectKeyFromObject(res)] = strings.ToLower(id)
			}
		}
		return nil
	})
	return out
}

// checkedAt records when obj was last compared with Azure.
func (l *listings) checkedAt(obj azurev1alpha1.Resource, at time.Time) {
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	d := annotationsDigest(obj)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.checked == nil {
		l.checked = map[types.NamespacedName]check{}
	}
	l.checked[key] = check{at: at, annotations: d}
}

// forget drops an object that is gone.
func (l *listings) forget(key types.NamespacedName) {
	l.mu.Lock()
	delete(l.checked, key)
	colls := make([]*collection, 0, len(l.colls))
	for _, c := range l.colls {
		colls = append(colls, c)
	}
	l.mu.Unlock()
	for _, c := range colls {
		c.mu.Lock()
		delete(c.members, key)
		c.mu.Unlock()
	}
}

// WakeWith says how the members of a collection listed for another's drift
// check reach the controller's queue: f gets their keys, which compare with
// the new listing at once (package controllers adds them to the queue).
func (r *Reconciler) WakeWith(f func(keys []types.NamespacedName)) {
	r.lists.mu.Lock()
	defer r.lists.mu.Unlock()
	r.lists.wake = f
}

// nextCheck is when an object last compared with the listing made at `at`
// is looked at again: the next period of its collection, whose members all
// come due then, at a jitter (up to a tenth of the period) of the
// collection's own.
func nextCheck(l listed, period time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(l.collection))
	j := time.Duration(0)
	if tenth := int64(period) / 10; tenth > 0 {
		j = time.Duration(h.Sum64() % uint64(tenth))
	}
	return max(time.Until(l.at.Add(period+j)), time.Second)
}
