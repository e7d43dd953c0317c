package sharding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Options configure a Coordinator.
type Options struct {
	// Leases reads and writes the leases (a clientset's CoordinationV1()).
	Leases coordinationv1client.LeasesGetter
	// Namespace holds the leases (the operator's).
	Namespace string
	// Prefix names the leases: <Prefix>-shard-<k>, <Prefix>-member-<Identity>.
	Prefix string
	// Identity is this replica's, unique among the live ones (the pod name).
	Identity string
	// Shards is N, more than 1 and at most Buckets.
	Shards int
	// LeaseDuration is how long a shard stays held without renewal (10s);
	// RenewDeadline how long this replica keeps working on a shard whose
	// renewals fail (7s, less than LeaseDuration by more than the time a
	// renewal takes to be seen); RetryPeriod how often leases are renewed
	// and looked at (2s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Lost is called, once, when a held shard went RenewDeadline without a
	// renewal: its lease may soon be taken, so the work on it must end at
	// once. nil logs and exits the process, as controller-runtime does when
	// it loses its leader lease.
	Lost func(shard int)
	Log  logr.Logger
}

// ErrOptions is returned by NewCoordinator for unusable options.
var ErrOptions = errors.New("sharding: invalid options")

// Coordinator holds this replica's share of the shard leases (doc.go).
// Start runs it (a manager.Runnable); Desired, Working and Owns connect it to
// the work.
type Coordinator struct {
	o Options

	mu sync.Mutex
	// held maps the shards whose lease this replica holds to the end of
	// their validity: when their last successful renewal was sent plus
	// RenewDeadline.
	held      map[int]time.Time
	releasing map[int]bool
	working   []int
	lost      map[int]bool
	changed   chan struct{}
	// leases are the last read, by name; seen when each one's
	// resourceVersion last changed, on this clock.
	leases map[string]*coordinationv1.Lease
	seen   map[string]seenAt
	ticks  int
}

type seenAt struct {
	rv string
	at time.Time
}

// NewCoordinator checks o and fills in its defaults.
func NewCoordinator(o Options) (*Coordinator, error) {
	if o.LeaseDuration == 0 {
		o.LeaseDuration = 10 * time.Second
	}
	if o.RenewDeadline == 0 {
		o.RenewDeadline = o.LeaseDuration * 7 / 10
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = o.LeaseDuration / 5
	}
	switch {
	case o.Leases == nil || o.Namespace == "" || o.Prefix == "" || o.Identity == "":
		return nil, fmt.Errorf("%w: leases client, namespace, prefix and identity are required", ErrOptions)
	case o.Shards < 2 || o.Shards > Buckets:
		return nil, fmt.Errorf("%w: %d shards: want 2 to %d", ErrOptions, o.Shards, Buckets)
	case o.RenewDeadline+o.RetryPeriod/2 >= o.LeaseDuration || o.RetryPeriod >= o.RenewDeadline:
		return nil, fmt.Errorf("%w: want retry period (%s) < renew deadline (%s) < lease duration (%s) by a margin", ErrOptions, o.RetryPeriod, o.RenewDeadline, o.LeaseDuration)
	}
	if o.Lost == nil {
		log := o.Log
		o.Lost = func(shard int) {
			log.Error(nil, "shard lease not renewed within the renew deadline: exiting so that no other replica's work overlaps this one's", "shard", shard)
			os.Exit(1)
		}
	}
	registerMetrics()
	return &Coordinator{o: o, held: map[int]time.Time{}, releasing: map[int]bool{}, lost: map[int]bool{},
		changed: make(chan struct{}), leases: map[string]*coordinationv1.Lease{}, seen: map[string]seenAt{}}, nil
}

// Shards is N.
func (c *Coordinator) Shards() int { return c.o.Shards }

// Identity is this replica's.
func (c *Coordinator) Identity() string { return c.o.Identity }

// ShardLease names shard k's lease.
func ShardLease(prefix string, k int) string { return prefix + "-shard-" + strconv.Itoa(k) }

// MemberLease names a replica's membership lease.
func MemberLease(prefix, identity string) string { return prefix + "-member-" + identity }

// NeedLeaderElection is false: every replica coordinates.
func (c *Coordinator) NeedLeaderElection() bool { return false }

// Desired returns the shards the work should act on now (held, not being
// handed back) and a channel closed when that, or Working, changes.
func (c *Coordinator) Desired() ([]int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.desiredLocked(), c.changed
}

func (c *Coordinator) desiredLocked() []int {
	var out []int
	for k := range c.held {
		if !c.releasing[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Working is what the work reports it acts on from now: called once the
// previous work stopped and before new work starts. A shard is handed back
// only once it is out of it. shards must be a subset of Desired's.
func (c *Coordinator) Working(shards []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.working = slices.Sorted(slices.Values(shards))
	c.notifyLocked() // the Labeller's Owns answers differently
}

// Owns reports whether the work may act on shard k now: it is working on
// it and the lease's renewal is within the renew deadline.
func (c *Coordinator) Owns(k int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, held := c.held[k]
	return held && slices.Contains(c.working, k) && time.Now().Before(until)
}

// OwnsNamespace is Owns for the shard of namespace.
func (c *Coordinator) OwnsNamespace(namespace string) bool {
	return c.Owns(ShardOf(namespace, c.o.Shards))
}

// OwnsBucket is Owns for the shard of bucket b.
func (c *Coordinator) OwnsBucket(b int) bool { return c.Owns(ShardOfBucket(b, c.o.Shards)) }

// Held lists the shards whose lease this replica holds.
func (c *Coordinator) Held() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.held))
}

func (c *Coordinator) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Start coordinates until ctx ends, then keeps renewing what it holds until
// the work reports it stopped (Working(nil)), hands every shard back and
// removes its membership lease.
func (c *Coordinator) Start(ctx context.Context) error {
	log := c.o.Log.WithValues("identity", c.o.Identity, "shards", c.o.Shards)
	log.Info("shard coordinator starting", "leaseNamespace", c.o.Namespace, "leaseDuration", c.o.LeaseDuration)
	stopWatchdog := make(chan struct{})
	defer close(stopWatchdog)
	go c.watchdog(stopWatchdog)
	t := time.NewTicker(c.o.RetryPeriod)
	defer t.Stop()
	bg := context.WithoutCancel(ctx)
	for {
		c.tick(bg, false)
		select {
		case <-ctx.Done():
			return c.shutdown(bg, t)
		case <-t.C:
		}
	}
}

// shutdown renews the shards held while the work stops, then releases them.
func (c *Coordinator) shutdown(ctx context.Context, t *time.Ticker) error {
	c.mu.Lock()
	for k := range c.held {
		c.releasing[k] = true
	}
	c.notifyLocked()
	c.mu.Unlock()
	for {
		c.mu.Lock()
		working := len(c.working)
		c.mu.Unlock()
		if working == 0 {
			break
		}
		c.tick(ctx, true)
		<-t.C
	}
	c.tick(ctx, true) // releases what is no longer worked on
	rctx, cancel := context.WithTimeout(ctx, c.o.RenewDeadline)
	defer cancel()
	err := c.o.Leases.Leases(c.o.Namespace).Delete(rctx, MemberLease(c.o.Prefix, c.o.Identity), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	c.o.Log.Info("shard coordinator stopped", "identity", c.o.Identity, "stillHeld", c.Held())
	return err
}

// watchdog calls Lost for a held shard past its validity.
func (c *Coordinator) watchdog(stop <-chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		now := time.Now()
		var lost []int
		c.mu.Lock()
		for k, until := range c.held {
			if now.After(until) && !c.lost[k] {
				c.lost[k] = true
				lost = append(lost, k)
			}
		}
		c.mu.Unlock()
		for _, k := range lost {
			c.o.Lost(k)
		}
	}
}

// tick is one round: renew the membership, read the leases, renew the
// shards held, hand back extras no longer worked on, take free or expired
// shards up to the target. stopping renews and releases only.
func (c *Coordinator) tick(ctx context.Context, stopping bool) {
	log := c.o.Log.WithValues("identity", c.o.Identity)
	call := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, c.o.RenewDeadline/2) }
	// Renewals first, from the leases as last read or written, each with a
	// deadline of its own: a slow API server (a replica's informers all
	// listing at once) must not hold them behind the other calls.
	for _, k := range c.Held() {
		rctx, cancel := call()
		c.renew(rctx, log, k)
		cancel()
	}
	if !stopping {
		rctx, cancel := call()
		c.renewMember(rctx, log)
		cancel()
	}
	rctx, cancel := call()
	defer cancel()
	list, err := c.o.Leases.Leases(c.o.Namespace).List(rctx, metav1.ListOptions{})
	if err != nil {
		log.Error(err, "list leases; retrying")
		return
	}
	now := time.Now()
	c.mu.Lock()
	c.ticks++
	ticks := c.ticks
	c.leases = map[string]*coordinationv1.Lease{}
	for i := range list.Items {
		l := &list.Items[i]
		if !strings.HasPrefix(l.Name, c.o.Prefix+"-") {
			continue
		}
		c.leases[l.Name] = l
		if s, ok := c.seen[l.Name]; !ok || s.rv != l.ResourceVersion {
			c.seen[l.Name] = seenAt{rv: l.ResourceVersion, at: now}
		}
	}
	members, otherN := c.liveMembersLocked(now)
	target := Targets(c.o.Shards, members)[c.o.Identity]
	held := len(c.held)
	c.mu.Unlock()

	if !stopping {
		c.gcMembers(rctx, now)
		if len(otherN) > 0 {
			// Shard k of another N owns other buckets: taking shards while
			// such a replica lives could overlap its work. Those keep
			// theirs until they stop; this replica waits.
			if ticks%30 == 1 {
				log.Info("replicas with another number of shards are live: taking no shard until they stop", "replicas", otherN, "held", c.Held())
			}
			target = held
		}
		c.balance(rctx, log, target, len(members))
	}
	c.releaseStopped(rctx, log)
	shardsHeld.Set(float64(len(c.Held())))
}

func (c *Coordinator) renewMember(ctx context.Context, log logr.Logger) {
	name := MemberLease(c.o.Prefix, c.o.Identity)
	now := metav1.NewMicroTime(time.Now())
	rec := resourcelock.LeaderElectionRecord{HolderIdentity: c.o.Identity, LeaseDurationSeconds: c.leaseSeconds(),
		AcquireTime: metav1.Time(now), RenewTime: metav1.Time(now)}
	c.mu.Lock()
	cur := c.leases[name]
	c.mu.Unlock()
	leases := c.o.Leases.Leases(c.o.Namespace)
	var err error
	if cur == nil {
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.o.Namespace, Labels: c.labels("member"),
			Annotations: map[string]string{AnnotationShards: strconv.Itoa(c.o.Shards)}},
			Spec: resourcelock.LeaderElectionRecordToLeaseSpec(&rec)}
		_, err = leases.Create(ctx, l, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = nil // read at the next tick
		}
	} else {
		l := cur.DeepCopy()
		l.Spec.RenewTime = &now
		l.Spec.HolderIdentity = &c.o.Identity
		if l.Annotations == nil {
			l.Annotations = map[string]string{}
		}
		l.Annotations[AnnotationShards] = strconv.Itoa(c.o.Shards)
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsConflict(err) {
		log.Error(err, "renew membership lease; retrying")
	}
}

func (c *Coordinator) labels(role string) map[string]string {
	return map[string]string{"app.kubernetes.io/managed-by": "aztenant", "aztenant.io/lease": role}
}

func (c *Coordinator) leaseSeconds() int {
	return int((c.o.LeaseDuration + time.Second - 1) / time.Second)
}

// expiredLocked reports whether lease l, held by someone, has not changed
// for its duration as seen here.
func (c *Coordinator) expiredLocked(l *coordinationv1.Lease, now time.Time) bool {
	d := c.o.LeaseDuration
	if l.Spec.LeaseDurationSeconds != nil && *l.Spec.LeaseDurationSeconds > 0 {
		d = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return now.Sub(c.seen[l.Name].at) > d
}

func holder(l *coordinationv1.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// AnnotationShards on a membership lease is its replica's N.
const AnnotationShards = "aztenant.io/shards"

// liveMembersLocked lists the identities of the membership leases not
// expired, this replica's always, and those of them that count another N
// of shards (a rollout changing --shards).
func (c *Coordinator) liveMembersLocked(now time.Time) (members, otherN []string) {
	members = []string{c.o.Identity}
	prefix := c.o.Prefix + "-member-"
	for name, l := range c.leases {
		id, ok := strings.CutPrefix(name, prefix)
		if !ok || id == c.o.Identity || holder(l) == "" || c.expiredLocked(l, now) {
			continue
		}
		members = append(members, id)
		if n := l.Annotations[AnnotationShards]; n != strconv.Itoa(c.o.Shards) {
			otherN = append(otherN, id+" ("+n+")")
		}
	}
	slices.Sort(members)
	return members, otherN
}

// gcMembers deletes membership leases expired for ten durations (pods
// that went away without stopping cleanly).
func (c *Coordinator) gcMembers(ctx context.Context, now time.Time) {
	prefix := c.o.Prefix + "-member-"
	c.mu.Lock()
	var stale []*coordinationv1.Lease
	for name, l := range c.leases {
		if strings.HasPrefix(name, prefix) && now.Sub(c.seen[name].at) > 10*c.o.LeaseDuration {
			stale = append(stale, l)
		}
	}
	c.mu.Unlock()
	for _, l := range stale {
		rv := l.ResourceVersion
		_ = c.o.Leases.Leases(c.o.Namespace).Delete(ctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
	}
}

// renew renews shard k's lease. A lease another replica holds now means
// this one's renewals lapsed: Lost.
func (c *Coordinator) renew(ctx context.Context, log logr.Logger, k int) {
	name := ShardLease(c.o.Prefix, k)
	c.mu.Lock()
	cur := c.leases[name]
	c.mu.Unlock()
	if h := holder(cur); h != c.o.Identity {
		c.mu.Lock()
		first := !c.lost[k]
		c.lost[k] = true
		c.mu.Unlock()
		if first {
			log.Error(nil, "shard lease held by another replica", "shard", k, "holder", h)
			c.o.Lost(k)
		}
		return
	}
	sent := time.Now()
	l := cur.DeepCopy()
	now := metav1.NewMicroTime(sent)
	l.Spec.RenewTime = &now
	updated, err := c.o.Leases.Leases(c.o.Namespace).Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		log.Error(err, "renew shard lease; retrying until the renew deadline", "shard", k)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.held[k]; ok {
		c.held[k] = sent.Add(c.o.RenewDeadline)
		c.leases[name] = updated
	}
}

// balance hands back shards above target (the work drops them first) and
// takes free or expired ones below it.
func (c *Coordinator) balance(ctx context.Context, log logr.Logger, target, members int) {
	now := time.Now()
	c.mu.Lock()
	keep := len(c.held) - len(c.releasing)
	switch {
	case keep > target:
		// The highest-numbered first: any choice works, a fixed one reads
		// better in logs.
		desired := c.desiredLocked()
		for _, k := range desired[target:] {
			c.releasing[k] = true
		}
		log.Info("handing shards back", "shards", desired[target:], "target", target, "members", members)
		c.notifyLocked()
	case keep < target && len(c.releasing) > 0:
		// A member went away meanwhile: keep what is still held.
		for k := range c.releasing {
			if keep < target {
				delete(c.releasing, k)
				keep++
			}
		}
		c.notifyLocked()
	}
	want := target - len(c.held)
	// The first tick only announces this replica, so that replicas started
	// together see each other before taking shards.
	if want <= 0 || c.ticks < 2 {
		c.mu.Unlock()
		return
	}
	var free []int
	for k := range c.o.Shards {
		if _, held := c.held[k]; held {
			continue
		}
		l := c.leases[ShardLease(c.o.Prefix, k)]
		if h := holder(l); l == nil || h == "" || h == c.o.Identity || c.expiredLocked(l, now) {
			free = append(free, k)
		}
	}
	c.mu.Unlock()
	var taken []int
	for _, k := range preference(c.o.Identity, free) {
		if len(taken) == want {
			break
		}
		if c.acquire(ctx, log, k) {
			taken = append(taken, k)
		}
	}
	if len(taken) > 0 {
		log.Info("took shards", "shards", taken, "held", c.Held(), "target", target, "members", members)
		c.mu.Lock()
		c.notifyLocked()
		c.mu.Unlock()
	}
}

// acquire takes shard k's lease; the resourceVersion read decides between
// replicas trying at once.
func (c *Coordinator) acquire(ctx context.Context, log logr.Logger, k int) bool {
	name := ShardLease(c.o.Prefix, k)
	leases := c.o.Leases.Leases(c.o.Namespace)
	c.mu.Lock()
	cur := c.leases[name]
	c.mu.Unlock()
	sent := time.Now()
	rec := resourcelock.LeaderElectionRecord{HolderIdentity: c.o.Identity, LeaseDurationSeconds: c.leaseSeconds(),
		AcquireTime: metav1.Time{Time: sent}, RenewTime: metav1.Time{Time: sent}}
	var (
		got *coordinationv1.Lease
		err error
	)
	if cur == nil {
		got, err = leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.o.Namespace, Labels: c.labels("shard")},
			Spec: resourcelock.LeaderElectionRecordToLeaseSpec(&rec)}, metav1.CreateOptions{})
	} else {
		old := resourcelock.LeaseSpecToLeaderElectionRecord(&cur.Spec)
		rec.LeaderTransitions = old.LeaderTransitions
		if old.HolderIdentity != c.o.Identity {
			rec.LeaderTransitions++
		} else if !old.AcquireTime.IsZero() {
			rec.AcquireTime = old.AcquireTime
		}
		l := cur.DeepCopy()
		l.Spec = resourcelock.LeaderElectionRecordToLeaseSpec(&rec)
		got, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	}
	if err != nil {
		if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			log.Error(err, "take shard lease", "shard", k)
		}
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held[k] = sent.Add(c.o.RenewDeadline)
	delete(c.lost, k)
	c.leases[name] = got
	return true
}

// releaseStopped hands back the shards marked for it that the work no
// longer acts on.
func (c *Coordinator) releaseStopped(ctx context.Context, log logr.Logger) {
	c.mu.Lock()
	var ready []int
	for k := range c.releasing {
		if !slices.Contains(c.working, k) {
			ready = append(ready, k)
		}
	}
	c.mu.Unlock()
	for _, k := range ready {
		name := ShardLease(c.o.Prefix, k)
		c.mu.Lock()
		cur := c.leases[name]
		c.mu.Unlock()
		if holder(cur) != c.o.Identity {
			continue // renew reported it
		}
		old := resourcelock.LeaseSpecToLeaderElectionRecord(&cur.Spec)
		now := time.Now()
		// As client-go's leader election releases: no holder, 1s duration.
		rec := resourcelock.LeaderElectionRecord{LeaderTransitions: old.LeaderTransitions, LeaseDurationSeconds: 1,
			AcquireTime: metav1.Time{Time: now}, RenewTime: metav1.Time{Time: now}}
		l := cur.DeepCopy()
		l.Spec = resourcelock.LeaderElectionRecordToLeaseSpec(&rec)
		if _, err := c.o.Leases.Leases(c.o.Namespace).Update(ctx, l, metav1.UpdateOptions{}); err != nil {
			log.Error(err, "hand shard lease back; retrying", "shard", k)
			continue
		}
		c.mu.Lock()
		delete(c.held, k)
		delete(c.releasing, k)
		c.mu.Unlock()
		log.Info("handed shard back", "shard", k)
	}
}

// Changes returns a channel closed at the next change of Desired or Working.
func (c *Coordinator) Changes() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}
