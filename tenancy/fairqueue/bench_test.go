package fairqueue

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// BenchmarkSmallTenantLatency measures how long a tenant's single item waits
// while another tenant has a 2,000-item backlog, with N workers each taking
// 100µs per item (a stand-in for a reconcile), for this queue and for
// client-go's FIFO. Reported: small-ms (wait from Add to Get) and
// handed-before (items handed out between its Add and its Get).
func BenchmarkSmallTenantLatency(b *testing.B) {
	const backlog, work = 2000, 100 * time.Microsecond
	queues := map[string]func() workqueue.TypedRateLimitingInterface[string]{
		"fair": func() workqueue.TypedRateLimitingInterface[string] {
			return New("", workqueue.DefaultTypedControllerRateLimiter[string](), Options[string]{Group: byPrefix})
		},
		"fifo": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		},
	}
	for _, name := range []string{"fair", "fifo"} {
		for _, workers := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				var totalWait time.Duration
				var totalBefore int
				for b.Loop() {
					q := queues[name]()
					for i := range backlog {
						q.Add("a" + strconv.Itoa(i))
					}
					var (
						wg      sync.WaitGroup
						mu      sync.Mutex
						handed  int
						before  = -1
						gotAt   time.Time
						found   = make(chan struct{})
						addedAt time.Time
						atAdd   int
						stop    bool
					)
					for range workers {
						wg.Go(func() {
							for {
								item, shutdown := q.Get()
								if shutdown {
									return
								}
								mu.Lock()
								if item == "b1" {
									before, gotAt = handed, time.Now()
									close(found)
								}
								handed++
								done := stop
								mu.Unlock()
								if !done {
									time.Sleep(work)
								}
								q.Done(item)
							}
						})
					}
					// The backlog is being worked on when the small tenant's item arrives.
					time.Sleep(time.Millisecond)
					mu.Lock()
					addedAt, atAdd = time.Now(), handed
					mu.Unlock()
					q.Add("b1")
					<-found
					mu.Lock()
					stop = true // drain the rest of the backlog quickly
					mu.Unlock()
					q.ShutDown()
					wg.Wait()
					mu.Lock()
					totalWait += gotAt.Sub(addedAt)
					totalBefore += before - atAdd
					mu.Unlock()
				}
				b.ReportMetric(float64(totalWait.Microseconds())/1000/float64(b.N), "small-ms")
				b.ReportMetric(float64(totalBefore)/float64(b.N), "handed-before")
			})
		}
	}
}

// BenchmarkAddGetDone is the per-item overhead of the fair order versus
// client-go's FIFO, with 200 groups.
func BenchmarkAddGetDone(b *testing.B) {
	for _, fair := range []bool{true, false} {
		b.Run(fmt.Sprintf("fair=%v", fair), func(b *testing.B) {
			var q workqueue.TypedRateLimitingInterface[int]
			if fair {
				q = New("", workqueue.DefaultTypedControllerRateLimiter[int](), Options[int]{Group: func(i int) string { return strconv.Itoa(i % 200) }})
			} else {
				q = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[int]())
			}
			defer q.ShutDown()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q.Add(i % 4096)
				item, _ := q.Get()
				q.Done(item)
				i++
			}
		})
	}
}
