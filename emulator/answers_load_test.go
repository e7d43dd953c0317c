package emulator

import (
	"runtime"
	"testing"
)

// BenchmarkAnswersLoad reads every kind's examples as the first write that needs them
// does (once per process), and reports the heap the loaded rules keep.
func BenchmarkAnswersLoad(b *testing.B) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	kept, err := loadExamples(exampleFS)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	retained := float64(ms.HeapAlloc) - float64(before)
	runtime.KeepAlive(kept)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := loadExamples(exampleFS); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(retained/(1<<20), "retained-MiB")
}
