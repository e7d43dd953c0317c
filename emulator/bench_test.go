package emulator_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// benchClient is the generic ARM client with a cached platform token, over TLS.
func benchClient(b *testing.B, auditSize int) (*fixture, *armresources.Client) {
	f := newFixture(b, func(c *emulator.Config) { c.AuditSize = auditSize })
	cred := f.platformCred(b)
	f.createGroup(b, cred, "bench")
	return f, f.resources(b, cred)
}

// parallelism: client and server share the process; more goroutines than cores keep both
// busy while requests are in flight.
const benchParallelism = 8

func BenchmarkSDKGet(b *testing.B) {
	_, res := benchClient(b, 10000)
	id := rgScope + "bench/providers/Microsoft.Test/widgets/w"
	if _, err := put(b, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"size": 3}}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := res.GetByID(ctx, id, "2024-01-01", nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

func BenchmarkSDKPut(b *testing.B) {
	_, res := benchClient(b, 10000)
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// 100 resources, each updated over and over: creates first, then updates.
			id := fmt.Sprintf("%sbench/providers/Microsoft.Test/widgets/w%d", rgScope, n.Add(1)%100)
			p, err := res.BeginCreateOrUpdateByID(ctx, id, "2024-01-01", armresources.GenericResource{
				Location: to.Ptr("westeurope"), Tags: map[string]*string{"n": to.Ptr("x")}, Properties: map[string]any{"size": 3}}, nil)
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := p.PollUntilDone(ctx, fastPoll); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// BenchmarkHeapAfter100kCalls shows memory stays flat: the audit log is a ring buffer and
// counters are totals, so 100,000 calls leave the heap where 1,000 calls left it.
// Run with -benchtime=1x.
func BenchmarkHeapAfter100kCalls(b *testing.B) {
	const auditSize = 1000
	f, res := benchClient(b, auditSize)
	id := rgScope + "bench/providers/Microsoft.Test/widgets/w"
	if _, err := put(b, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		b.Fatal(err)
	}
	calls := func(total int) {
		var left atomic.Int64
		left.Store(int64(total))
		done := make(chan struct{})
		for range benchParallelism * 2 {
			go func() {
				defer func() { done <- struct{}{} }()
				for left.Add(-1) >= 0 {
					if _, err := res.GetByID(context.Background(), id, "2024-01-01", nil); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		for range benchParallelism * 2 {
			<-done
		}
	}
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for range b.N {
		calls(1000)
		before := heap()
		start := time.Now()
		calls(100000)
		elapsed := time.Since(start)
		after := heap()
		c := f.emu.Counters()
		if got := len(f.emu.Audit(emulator.AuditFilter{})); got != auditSize {
			b.Errorf("audit holds %d entries, want the ring size %d", got, auditSize)
		}
		b.Logf("heap after 1,000 calls: %.1f MiB; after 100,000 more: %.1f MiB; ARM calls counted: %d; %.0f GETs/s",
			before, after, c.ARM, 100000/elapsed.Seconds())
		b.ReportMetric(before, "heap-MiB-before")
		b.ReportMetric(after, "heap-MiB-after")
	}
}
