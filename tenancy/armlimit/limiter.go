package armlimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Bucket is a token bucket: Burst requests at once, refilled at PerSecond.
type Bucket struct {
	Burst     int
	PerSecond float64
}

// Options configure a Limiter.
type Options struct {
	Read, Write Bucket
	// IdleTTL is how long an unused key is kept. It is raised to at least
	// the time a bucket takes to refill, so evicting a key never forgets a
	// debt. Default 10 minutes.
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

// Limiter paces requests per key. Safe for concurrent use; the zero value is
// not usable, call New.
type Limiter struct {
	opts Options

	mu        sync.Mutex
	keys      map[string]*entry
	lastSweep time.Time
}

type entry struct {
	read, write bucketState
	lastUsed    time.Time
}

type bucketState struct {
	tokens float64 // may go negative: callers already waiting for refill
	at     time.Time
	// paused is when ARM's last Retry-After for this key ends. Callers that
	// reserved a token before the 429 check it again before sending.
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
	for _, b := range []Bucket{opts.Read, opts.Write} {
		if refill := time.Duration(float64(b.Burst) / b.PerSecond * float64(time.Second)); opts.IdleTTL < refill {
			opts.IdleTTL = refill
		}
	}
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = def.MaxKeys
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Limiter{opts: opts, keys: map[string]*entry{}}
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
	e := l.entryLocked(key, now)
	b, cfg := &e.read, l.opts.Read
	if write {
		b, cfg = &e.write, l.opts.Write
	}
	b.refill(now, cfg)
	b.tokens--
	if b.tokens >= 0 && !now.Before(b.paused) {
		l.mu.Unlock()
		return nil
	}
	wait := max(time.Duration(-b.tokens/cfg.PerSecond*float64(time.Second)), b.paused.Sub(now))
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		b.tokens++
		l.mu.Unlock()
		return &DeadlineError{Key: key, Write: write, Wait: wait}
	}
	l.mu.Unlock()

	for {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			// Give the reservation back so later callers do not wait for it.
			l.mu.Lock()
			if e, ok := l.keys[key]; ok {
				if write {
					e.write.tokens++
				} else {
					e.read.tokens++
				}
			}
			l.mu.Unlock()
			return ctx.Err()
		}
		// A 429 may have come while this caller waited: honour it too.
		now := l.opts.Now()
		l.mu.Lock()
		var paused time.Time
		if e, ok := l.keys[key]; ok {
			paused = e.read.paused
			if write {
				paused = e.write.paused
			}
		}
		l.mu.Unlock()
		if wait = paused.Sub(now); wait <= 0 {
			return nil
		}
	}
}

// Allow takes a token for key if one is available now and reports whether it
// did; it never waits. Use it for requests that may be skipped.
func (l *Limiter) Allow(key string, write bool) bool {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entryLocked(key, now)
	b, cfg := &e.read, l.opts.Read
	if write {
		b, cfg = &e.write, l.opts.Write
	}
	b.refill(now, cfg)
	if b.tokens < 1 || now.Before(b.paused) {
		return false
	}
	b.tokens--
	return true
}

// Backoff makes key's next request of that kind wait at least d, for every
// caller: use it with ARM's Retry-After on a 429 so all workers sharing the
// principal stop, not just the one that was told.
func (l *Limiter) Backoff(key string, write bool, d time.Duration) {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entryLocked(key, now)
	b, cfg := &e.read, l.opts.Read
	if write {
		b, cfg = &e.write, l.opts.Write
	}
	b.refill(now, cfg)
	// The next Wait consumes one token and waits -(tokens-1)/rate.
	b.tokens = math.Min(b.tokens, 1-d.Seconds()*cfg.PerSecond)
	if until := now.Add(d); until.After(b.paused) {
		b.paused = until
	}
}

// Len returns the number of keys tracked (for tests and metrics).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

func (l *Limiter) entryLocked(key string, now time.Time) *entry {
	if now.Sub(l.lastSweep) > l.opts.IdleTTL/2 {
		l.sweepLocked(now)
	}
	e, ok := l.keys[key]
	if !ok {
		if len(l.keys) >= l.opts.MaxKeys {
			l.evictOldestLocked()
		}
		e = &entry{
			read:  bucketState{tokens: float64(l.opts.Read.Burst), at: now},
			write: bucketState{tokens: float64(l.opts.Write.Burst), at: now},
		}
		l.keys[key] = e
	}
	e.lastUsed = now
	return e
}

// sweepLocked drops keys idle for IdleTTL: their buckets are full again, so
// forgetting them changes nothing. It runs at most every IdleTTL/2, so its
// O(keys) cost is amortised over many Waits.
func (l *Limiter) sweepLocked(now time.Time) {
	l.lastSweep = now
	for k, e := range l.keys {
		if now.Sub(e.lastUsed) > l.opts.IdleTTL && !now.Before(e.read.paused) && !now.Before(e.write.paused) {
			delete(l.keys, k)
		}
	}
}

func (l *Limiter) evictOldestLocked() {
	var (
		oldest string
		at     time.Time
		found  bool
	)
	for k, e := range l.keys {
		if !found || e.lastUsed.Before(at) {
			oldest, at, found = k, e.lastUsed, true
		}
	}
	if found {
		delete(l.keys, oldest)
	}
}

func (b *bucketState) refill(now time.Time, cfg Bucket) {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = math.Min(float64(cfg.Burst), b.tokens+elapsed.Seconds()*cfg.PerSecond)
		b.at = now
	}
}
