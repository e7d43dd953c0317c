package sharding

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	shardsHeld = prometheus.NewGauge(prometheus.GaugeOpts{Name: "aztenant_shards_held",
		Help: "Shard leases this replica holds (--shards)."})
	// cachedObjects counts, at each scrape, the objects of the served
	// aztenant kinds in the cache of the work running now.
	cachedCount   atomic.Pointer[func() float64]
	cachedObjects = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "aztenant_shard_cached_objects",
		Help: "Objects of the served aztenant kinds in this replica's cache (its shards' namespaces)."}, func() float64 {
		if f := cachedCount.Load(); f != nil {
			return (*f)()
		}
		return 0
	})
	registerOnce sync.Once
)

// registerMetrics registers the sharding metrics once, in sharded mode only.
func registerMetrics() {
	registerOnce.Do(func() { metrics.Registry.MustRegister(shardsHeld, cachedObjects) })
}

// SetCachedCounter makes aztenant_shard_cached_objects report count (nil: 0).
func SetCachedCounter(count func() float64) {
	if count == nil {
		cachedCount.Store(nil)
		return
	}
	cachedCount.Store(&count)
}
