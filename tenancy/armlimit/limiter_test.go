package armlimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for the bucket arithmetic.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestLimiter(c *fakeClock) *Limiter {
	return New(Options{
		Read:  Bucket{Burst: 3, PerSecond: 1},
		Write: Bucket{Burst: 1, PerSecond: 0.5},
		Now:   c.Now,
	})
}

func TestBurstThenThrottle(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	l := newTestLimiter(c)

	tests := []struct {
		name    string
		advance time.Duration
		key     string
		write   bool
		wantErr bool
	}{
		{"read 1 of burst", 0, "a", false, false},
		{"read 2 of burst", 0, "a", false, false},
		{"read 3 of burst", 0, "a", false, false},
		{"read 4 throttled", 0, "a", false, true},
		{"writes have their own bucket", 0, "a", true, false},
		{"second write throttled", 0, "a", true, true},
		{"other principal unaffected", 0, "b", false, false},
		{"other principal writes unaffected", 0, "b", true, false},
		{"one second refills one read", time.Second, "a", false, false},
		{"but only one", 0, "a", false, true},
		{"write refills at half rate: 1s is not enough", 0, "a", true, true},
		{"2s is", time.Second, "a", true, false},
	}
	for _, tt := range tests {
		c.Advance(tt.advance)
		if got := l.Allow(tt.key, tt.write); got == tt.wantErr {
			t.Fatalf("%s: Allow() = %v, want %v", tt.name, got, !tt.wantErr)
		}
	}
}

func TestWaitFailsFastPastDeadline(t *testing.T) {
	l := New(Options{Read: Bucket{Burst: 1, PerSecond: 0.001}})
	if err := l.Wait(context.Background(), "p", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var de *DeadlineError
	if err := l.Wait(ctx, "p", false); !errors.As(err, &de) {
		t.Fatalf("Wait = %v, want *DeadlineError (the next token is ~1000s away)", err)
	}
}

// Past the burst, Wait sleeps until the bucket has refilled: with a burst of
// one, five waits take four refill periods. A lower bound only: a loaded
// machine may take longer, never shorter.
func TestWaitSleepsUntilRefill(t *testing.T) {
	const perToken = 5 * time.Millisecond
	l := New(Options{Read: Bucket{Burst: 1, PerSecond: float64(time.Second / perToken)}}) // real clock
	ctx := context.Background()
	start := time.Now()
	for i := range 5 {
		if err := l.Wait(ctx, "p", false); err != nil {
			t.Fatalf("wait %d: %v", i, err)
		}
	}
	// A nanosecond or so per token of rounding in rate's arithmetic.
	if took, least := time.Since(start), 4*perToken-time.Millisecond; took < least {
		t.Fatalf("5 waits with a burst of 1 at 200/s took %s, want at least %s (4 refills)", took, least)
	}
}

func TestWaitHonoursCancellationAndReturnsToken(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	l := New(Options{Read: Bucket{Burst: 1, PerSecond: 0.001}, Now: c.Now})
	if err := l.Wait(context.Background(), "p", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Wait(ctx, "p", false) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel = %v, want context.Canceled", err)
	}
	// The cancelled reservation was returned: after one refill period the
	// next caller is admitted at once (without the return it would owe two).
	c.Advance(1000 * time.Second)
	if !l.Allow("p", false) {
		t.Fatal("Allow after one refill period = false: the cancelled wait kept its token")
	}
}

func TestBackoffStopsEveryCaller(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	l := New(Options{Now: c.Now})
	l.Backoff("p", true, 30*time.Second)
	check := func(key string, write, wantThrottled bool) {
		t.Helper()
		if got := l.Allow(key, write); got == wantThrottled {
			t.Fatalf("Allow(%s, write=%v) = %v, want %v", key, write, got, !wantThrottled)
		}
	}
	check("p", true, true)
	check("p", false, false) // reads are not affected by a write 429
	c.Advance(29 * time.Second)
	check("p", true, true)
	c.Advance(time.Second)
	// No burst after the pause: the bucket holds one token, then refills.
	check("p", true, false)
	check("p", true, true)
	c.Advance(time.Second)
	for range 10 {
		check("p", true, false)
	}
	check("p", true, true)
}

// A caller that reserved its token before ARM answered 429 to another
// worker still waits out the Retry-After: with many workers on one
// principal, most are already waiting when the 429 comes.
func TestBackoffHoldsCallersAlreadyWaiting(t *testing.T) {
	l := New(Options{Write: Bucket{Burst: 1, PerSecond: 20}}) // real clock: 50 ms per token
	ctx := context.Background()
	if err := l.Wait(ctx, "p", true); err != nil {
		t.Fatal(err)
	}
	waited := make(chan time.Duration)
	go func() {
		start := time.Now()
		if err := l.Wait(ctx, "p", true); err != nil {
			t.Error(err)
		}
		waited <- time.Since(start)
	}()
	time.Sleep(10 * time.Millisecond) // the second caller holds a reservation for ~50 ms from now
	const retryAfter = 300 * time.Millisecond
	l.Backoff("p", true, retryAfter)
	if l.Allow("p", true) {
		t.Error("Allow during the pause = true")
	}
	if d := <-waited; d < retryAfter {
		t.Errorf("a caller waiting before the 429 went ahead after %s, inside the %s Retry-After", d, retryAfter)
	}
}

func TestIdleKeysAreEvicted(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	l := New(Options{IdleTTL: time.Minute, Now: c.Now})
	for i := range 100 {
		if err := l.Wait(context.Background(), fmt.Sprint("p", i), false); err != nil {
			t.Fatal(err)
		}
	}
	l.Backoff("owing", false, time.Hour)
	if l.Len() != 101 {
		t.Fatalf("Len = %d, want 101", l.Len())
	}
	c.Advance(2 * time.Minute)
	if err := l.Wait(context.Background(), "fresh", false); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 2 {
		t.Fatalf("after idle TTL Len = %d, want 2 (the fresh key, and the one still paused by ARM)", l.Len())
	}
}

func TestMaxKeysBoundsMemory(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	l := New(Options{MaxKeys: 10, Now: c.Now})
	for i := range 50 {
		c.Advance(time.Millisecond)
		_ = l.Wait(context.Background(), fmt.Sprint("p", i), false)
	}
	if l.Len() != 10 {
		t.Fatalf("Len = %d, want 10", l.Len())
	}
}

func TestIdleTTLCoversRefill(t *testing.T) {
	l := New(Options{Read: Bucket{Burst: 100, PerSecond: 1}, IdleTTL: time.Second})
	if l.opts.IdleTTL < 100*time.Second {
		t.Fatalf("IdleTTL = %s, want at least the 100s refill time", l.opts.IdleTTL)
	}
}

// Concurrent callers of several keys share each key's buckets exactly: on a
// clock that does not move, every key admits its read and write bursts, no
// more, and every other Wait fails fast (its next token is ~1000 s away,
// past the deadline) without consuming anything, so one refill period later
// exactly one more request of each kind is admitted.
func TestConcurrentWaitsRace(t *testing.T) {
	const keys, readBurst, writeBurst = 4, 20, 5
	c := &fakeClock{now: time.Now()} // deadlines are on the real clock
	l := New(Options{
		Read:  Bucket{Burst: readBurst, PerSecond: 0.001},
		Write: Bucket{Burst: writeBurst, PerSecond: 0.001},
		Now:   c.Now,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var (
		mu       sync.Mutex
		admitted = map[string]int{}
		wg       sync.WaitGroup
	)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				key, write := fmt.Sprint("p", (g+i)%keys), i%5 == 0
				err := l.Wait(ctx, key, write)
				var de *DeadlineError
				switch {
				case err == nil:
					mu.Lock()
					admitted[fmt.Sprint(key, " write=", write)]++
					mu.Unlock()
				case !errors.As(err, &de):
					t.Errorf("Wait(%s, write=%v) = %v, want nil or *DeadlineError", key, write, err)
				}
			}
		})
	}
	wg.Wait()
	for k := range keys {
		for _, write := range []bool{false, true} {
			key, want := fmt.Sprint("p", k), readBurst
			if write {
				want = writeBurst
			}
			if got := admitted[fmt.Sprint(key, " write=", write)]; got != want {
				t.Errorf("%s write=%v: %d requests admitted, want the burst, %d", key, write, got, want)
			}
		}
	}
	c.Advance(1000 * time.Second)
	for k := range keys {
		for _, write := range []bool{false, true} {
			key := fmt.Sprint("p", k)
			if !l.Allow(key, write) || l.Allow(key, write) {
				t.Errorf("%s write=%v after one refill period: want exactly one token (the fast failures consumed none)", key, write)
			}
		}
	}
}

func BenchmarkWaitUnthrottled(b *testing.B) {
	l := New(Options{Read: Bucket{Burst: 1, PerSecond: 1e12}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Wait(ctx, "11111111-2222-3333-4444-555555555555", false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWaitUnthrottledParallel(b *testing.B) {
	l := New(Options{Read: Bucket{Burst: 1, PerSecond: 1e12}})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Wait(ctx, "principal", false); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
