package armlimit

import (
	"container/list"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Bucket is a token bucket: Burst requests at once, refilled at PerSecond.
type Bucket struct {
	Burst     int
	PerSecond float64
}

// Options configure a Limiter.
type Options struct {
	Read, Write Bucket
	// IdleTTL is how long an unused key is kept, at least the time a bucket
	// takes to refill; a key still owing tokens or paused is kept longer,
	// so evicting a key never forgets a debt. Default 10 minutes.
	IdleTTL time.Duration
	// MaxKeys bounds memory even when more principals are active within
	// IdleTTL; beyond it the least recently used key is dropped (and would
	// start again with full buckets). Default 10,000.
	MaxKeys int
	// Now is the clock, for tests. Default time.Now.
	Now func() time.Time
}

// DefaultOptions approximates ARM's per-principal limits (see the package doc).
func DefaultOptions() Options {
	return Options{
		Read:    Bucket{Burst: 250, PerSecond: 25},
		Write:   Bucket{Burst: 200, PerSecond: 10},
		IdleTTL: 10 * time.Minute,
		MaxKeys: 10000,
	}
}

// Limiter paces requests per key. Each key's read and write buckets are a
// golang.org/x/time/rate.Limiter, which does the token arithmetic:
// reservations, their delays, giving a cancelled one back. Limiter adds a
// bucket pair per key, a Retry-After that holds back every caller of the
// key (Backoff), and bounded memory (idle keys evicted, at most MaxKeys).
// Safe for concurrent use; the zero value is not usable, call New.
type Limiter struct {
	opts Options

	mu        sync.Mutex
	keys      map[string]*list.Element // of *entry, in lru
	lru       list.List                // most recently used first
	lastSweep time.Time
}

type entry struct {
	key         string
	read, write bucket
	lastUsed    time.Time
}

type bucket struct {
	*rate.Limiter
	// paused is when ARM's last Retry-After for this key ends; guarded by
	// Limiter.mu. Callers that reserved a token before the 429 check it
	// again before sending.
	paused time.Time
}

// New returns a Limiter; zero fields of opts take DefaultOptions' values.
func New(opts Options) *Limiter {
	def := DefaultOptions()
	if opts.Read.Burst <= 0 || opts.Read.PerSecond <= 0 {
		opts.Read = def.Read
	}
	if opts.Write.Burst <= 0 || opts.Write.PerSecond <= 0 {
		opts.Write = def.Write
	}
	if opts.IdleTTL <= 0 {
		opts.IdleTTL = def.IdleTTL
	}
	for _, b := range []Bucket{opts.Read, opts.Write} { // the time a bucket takes to refill
		opts.IdleTTL = max(opts.IdleTTL, time.Duration(float64(b.Burst)/b.PerSecond*float64(time.Second)))
	}
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = def.MaxKeys
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Limiter{opts: opts, keys: map[string]*list.Element{}}
}

// DeadlineError says the wait for a token is longer than the
// context allows; nothing was consumed.
type DeadlineError struct {
	Key   string
	Write bool
	Wait  time.Duration
}

func (e *DeadlineError) Error() string {
	op := "read"
	if e.Write {
		op = "write"
	}
	return fmt.Sprintf("ARM %s budget of principal %q: next request allowed in %s, after the context deadline", op, e.Key, e.Wait.Round(time.Millisecond))
}

// Wait blocks until key may send one read (write=false) or write request, or
// ctx ends. Deletes count as writes.
func (l *Limiter) Wait(ctx context.Context, key string, write bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := l.opts.Now()
	l.mu.Lock()
	b := l.bucketLocked(key, write, now)
	r := b.ReserveN(now, 1)
	wait := max(r.DelayFrom(now), b.paused.Sub(now))
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		r.CancelAt(now) // under l.mu no other reservation came in between: all is given back
		l.mu.Unlock()
		return &DeadlineError{Key: key, Write: write, Wait: wait}
	}
	l.mu.Unlock()

	for wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			r.CancelAt(l.opts.Now()) // so later callers do not wait for it
			return ctx.Err()
		}
		// A 429 may have come while this caller waited: honour it too.
		l.mu.Lock()
		wait = b.paused.Sub(l.opts.Now())
		l.mu.Unlock()
	}
	return nil
}

// Allow takes a token for key if one is available now and reports whether it
// did; it never waits. Use it for requests that may be skipped.
func (l *Limiter) Allow(key string, write bool) bool {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketLocked(key, write, now)
	return !now.Before(b.paused) && b.AllowN(now, 1)
}

// Backoff makes key's next request of that kind wait at least d, for every
// caller: use it with ARM's Retry-After on a 429 so all workers sharing the
// principal stop, not just the one that was told. Callers already waiting
// wait for the pause's end; the bucket is drained so that it holds one
// token then, so the requests after the pause are paced, not a burst.
func (l *Limiter) Backoff(key string, write bool, d time.Duration) {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketLocked(key, write, now)
	if until := now.Add(d); until.After(b.paused) {
		b.paused = until
	}
	// A reservation takes at most Burst tokens: drain in as many as needed.
	burst := b.Burst()
	for n := b.TokensAt(now) - 1 + d.Seconds()*float64(b.Limit()); n > 0; n -= float64(burst) {
		b.ReserveN(now, min(int(math.Ceil(n)), burst))
	}
}

// Len returns the number of keys tracked (for tests and metrics).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

func (l *Limiter) bucketLocked(key string, write bool, now time.Time) *bucket {
	if now.Sub(l.lastSweep) > l.opts.IdleTTL/2 {
		l.sweepLocked(now)
	}
	el, ok := l.keys[key]
	if ok {
		l.lru.MoveToFront(el)
	} else {
		if len(l.keys) >= l.opts.MaxKeys {
			l.removeLocked(l.lru.Back())
		}
		el = l.lru.PushFront(&entry{
			key:   key,
			read:  bucket{Limiter: rate.NewLimiter(rate.Limit(l.opts.Read.PerSecond), l.opts.Read.Burst)},
			write: bucket{Limiter: rate.NewLimiter(rate.Limit(l.opts.Write.PerSecond), l.opts.Write.Burst)},
		})
		l.keys[key] = el
	}
	e := el.Value.(*entry)
	e.lastUsed = now
	if write {
		return &e.write
	}
	return &e.read
}

// sweepLocked drops keys idle for IdleTTL whose buckets are full and not
// paused, so forgetting them changes nothing. It runs at most every
// IdleTTL/2 and looks only at the idle end of the LRU list.
func (l *Limiter) sweepLocked(now time.Time) {
	l.lastSweep = now
	for el := l.lru.Back(); el != nil; {
		e, prev := el.Value.(*entry), el.Prev()
		if now.Sub(e.lastUsed) <= l.opts.IdleTTL {
			return
		}
		if e.read.settled(now) && e.write.settled(now) {
			l.removeLocked(el)
		}
		el = prev
	}
}

// settled says b is as a new bucket would be: full and not paused.
func (b *bucket) settled(now time.Time) bool {
	return !now.Before(b.paused) && b.TokensAt(now) >= float64(b.Burst())
}

func (l *Limiter) removeLocked(el *list.Element) {
	delete(l.keys, el.Value.(*entry).key)
	l.lru.Remove(el)
}
