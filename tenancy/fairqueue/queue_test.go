package fairqueue

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// byPrefix groups "a1", "a2" into "a": the tests' stand-in for namespace -> tenant.
func byPrefix(s string) string { return s[:1] }

func newQueue(weights map[string]int) workqueue.TypedRateLimitingInterface[string] {
	return New("", workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second), Options[string]{
		Group: byPrefix,
		Weight: func(g string) int {
			if w, ok := weights[g]; ok {
				return w
			}
			return 1
		},
	})
}

// drain gets and dones every queued item, returning the order.
func drain(q workqueue.TypedInterface[string]) []string {
	var out []string
	for q.Len() > 0 {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		out = append(out, item)
		q.Done(item)
	}
	return out
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name    string
		weights map[string]int
		add     []string
		want    string
	}{
		{"one group is FIFO", nil, []string{"a1", "a2", "a3"}, "a1 a2 a3"},
		{"round-robin", nil, []string{"a1", "a2", "a3", "a4", "b1"}, "a1 b1 a2 a3 a4"},
		{"three groups", nil, []string{"a1", "a2", "b1", "b2", "c1"}, "a1 b1 c1 a2 b2"},
		{"weights 2:1", map[string]int{"a": 2}, []string{"a1", "a2", "a3", "a4", "b1", "b2"}, "a1 a2 b1 a3 a4 b2"},
		{"weight 3 with fewer items", map[string]int{"a": 3}, []string{"a1", "b1", "b2", "b3"}, "a1 b1 b2 b3"},
		{"zero or negative weight counts as 1", map[string]int{"a": 0, "b": -4}, []string{"a1", "a2", "b1", "b2"}, "a1 b1 a2 b2"},
		{"duplicates are dropped", nil, []string{"a1", "a1", "b1", "a1"}, "a1 b1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(tt.weights)
			defer q.ShutDown()
			for _, it := range tt.add {
				q.Add(it)
			}
			if got := strings.Join(drain(q), " "); got != tt.want {
				t.Fatalf("order = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSemantics checks the client-go contract item by item.
func TestSemantics(t *testing.T) {
	type step struct {
		op   string // add, get, done, len
		item string
		want int // for len
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"dedupe of queued items", []step{{"add", "a1", 0}, {"add", "a1", 0}, {"add", "b1", 0}, {"len", "", 2}}},
		{"re-add while processing waits for Done", []step{
			{"add", "a1", 0}, {"get", "a1", 0}, {"add", "a1", 0}, {"len", "", 0},
			{"done", "a1", 0}, {"len", "", 1}, {"get", "a1", 0}, {"done", "a1", 0}, {"len", "", 0}}},
		{"several re-adds while processing give one requeue", []step{
			{"add", "a1", 0}, {"get", "a1", 0}, {"add", "a1", 0}, {"add", "a1", 0}, {"done", "a1", 0}, {"len", "", 1}}},
		{"done without re-add forgets the item", []step{{"add", "a1", 0}, {"get", "a1", 0}, {"done", "a1", 0}, {"len", "", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(nil)
			defer q.ShutDown()
			for i, s := range tt.steps {
				switch s.op {
				case "add":
					q.Add(s.item)
				case "get":
					got, shutdown := q.Get()
					if shutdown || got != s.item {
						t.Fatalf("step %d: Get = %q, %v; want %q", i, got, shutdown, s.item)
					}
				case "done":
					q.Done(s.item)
				case "len":
					if got := q.Len(); got != s.want {
						t.Fatalf("step %d: Len = %d, want %d", i, got, s.want)
					}
				}
			}
		})
	}
}

// TestSameAsClientGoForOneGroup runs random operation sequences on this queue
// (one group) and on client-go's default queue and expects identical results:
// proof that only the order across groups differs.
func TestSameAsClientGoForOneGroup(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		ours := New[string]("", workqueue.DefaultTypedControllerRateLimiter[string](), Options[string]{})
		theirs := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		var processing []string
		for step := range 300 {
			switch op := r.IntN(3); {
			case op == 0 || len(processing) == 0 && ours.Len() == 0:
				item := string(rune('a' + r.IntN(8)))
				ours.Add(item)
				theirs.Add(item)
			case op == 1 && ours.Len() > 0:
				a, _ := ours.Get()
				b, _ := theirs.Get()
				if a != b {
					t.Fatalf("seed %d step %d: Get = %q, client-go %q", seed, step, a, b)
				}
				processing = append(processing, a)
			case len(processing) > 0:
				i := r.IntN(len(processing))
				item := processing[i]
				processing = slices.Delete(processing, i, i+1)
				ours.Done(item)
				theirs.Done(item)
			}
			if ours.Len() != theirs.Len() {
				t.Fatalf("seed %d step %d: Len = %d, client-go %d", seed, step, ours.Len(), theirs.Len())
			}
		}
		ours.ShutDown()
		theirs.ShutDown()
	}
}

func TestAddAfter(t *testing.T) {
	q := newQueue(nil)
	defer q.ShutDown()
	q.AddAfter("a1", 20*time.Millisecond)
	q.AddAfter("b1", 0) // immediate
	if got, _ := q.Get(); got != "b1" {
		t.Fatalf("first Get = %q, want b1 (a1 is delayed)", got)
	}
	q.Done("b1")
	got, _ := q.Get() // blocks until the delay passes
	if got != "a1" {
		t.Fatalf("second Get = %q, want a1", got)
	}
	q.Done("a1")
}

func TestRateLimitedRequeues(t *testing.T) {
	q := newQueue(nil)
	defer q.ShutDown()
	for i := 1; i <= 3; i++ {
		q.AddRateLimited("a1")
		if n := q.NumRequeues("a1"); n != i {
			t.Fatalf("NumRequeues = %d, want %d", n, i)
		}
		got, _ := q.Get()
		if got != "a1" {
			t.Fatalf("Get = %q", got)
		}
		q.Done(got)
	}
	q.Forget("a1")
	if n := q.NumRequeues("a1"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", n)
	}
}

func TestShutDown(t *testing.T) {
	q := newQueue(nil)
	q.Add("a1")
	q.Add("b1")
	q.ShutDown()
	q.Add("c1") // ignored
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
	// Queued items are still handed out, then shutdown is reported.
	var got []string
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	if strings.Join(got, " ") != "a1 b1" {
		t.Fatalf("items after ShutDown = %v, want [a1 b1]", got)
	}
}

func TestShutDownWithDrainWaitsForInFlight(t *testing.T) {
	q := newQueue(nil)
	q.Add("a1")
	item, _ := q.Get()
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned while an item was still being processed")
	case <-time.After(50 * time.Millisecond):
	}
	q.Done(item)
	<-drained
}

// TestNoConcurrentHandOut hammers the queue from several workers re-adding
// items and checks no item is ever processed by two workers at once and every
// add is eventually processed (run with -race).
func TestNoConcurrentHandOut(t *testing.T) {
	q := newQueue(map[string]int{"a": 3})
	var (
		mu       sync.Mutex
		inFlight = map[string]bool{}
		handled  atomic.Int64
	)
	var workers sync.WaitGroup
	for range 4 {
		workers.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				if inFlight[item] {
					mu.Unlock()
					t.Errorf("%s handed out twice concurrently", item)
					return
				}
				inFlight[item] = true
				mu.Unlock()
				if rand.IntN(4) == 0 {
					q.Add(item) // re-added while processing
				}
				mu.Lock()
				inFlight[item] = false
				mu.Unlock()
				handled.Add(1)
				q.Done(item)
			}
		})
	}
	items := []string{"a1", "a2", "a3", "b1", "b2", "c1"}
	for i := range 2000 {
		q.Add(items[i%len(items)])
	}
	q.ShutDownWithDrain()
	workers.Wait()
	if handled.Load() == 0 {
		t.Fatal("nothing handled")
	}
}

// TestSmallTenantBehindBacklog: a tenant with one item behind another's 2,000
// is handed out second, whatever the number of workers: the order is decided
// when items are popped, not by timing. Workers are simulated in one
// goroutine (up to `workers` items out at once, the oldest finished first),
// so the order measured is the queue's and not the scheduler's: counting
// positions in concurrent workers after Get returns let a descheduled worker
// reorder them.
func TestSmallTenantBehindBacklog(t *testing.T) {
	for _, workers := range []int{1, 4} {
		q := newQueue(nil)
		for i := range 2000 {
			q.Add("a" + strconv.Itoa(i))
		}
		q.Add("b1")
		var out, seen []string
		for len(seen) < 2001 {
			if len(out) == workers || q.Len() == 0 {
				q.Done(out[0])
				out = out[1:]
				continue
			}
			item, shutdown := q.Get()
			if shutdown {
				t.Fatal("queue shut down")
			}
			out = append(out, item)
			seen = append(seen, item)
		}
		if p := slices.Index(seen, "b1") + 1; p < 1 || p > 2 {
			t.Fatalf("%d workers: small tenant's item was handed out at position %d, want <= 2", workers, p)
		}
		q.ShutDown()
	}
}
