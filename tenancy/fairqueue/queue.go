package fairqueue

import (
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Options configure a fair queue.
type Options[T comparable] struct {
	// Group returns the group of an item (nil: one group, plain FIFO). It is called under the
	// queue's lock on every add: it must be cheap and must not block.
	Group func(T) string
	// Weight returns a group's share (default 1 for every group): a group of
	// weight w is served up to w items per turn. Called under the queue's lock
	// once per turn; same constraints as Group.
	Weight func(group string) int
	// MetricsProvider and Clock are passed to client-go; nil means its defaults.
	MetricsProvider workqueue.MetricsProvider
	Clock           clock.WithTicker
}

// New returns a rate-limiting work queue with client-go semantics, handing
// items out by weighted round-robin over opts.Group. name names the queue's
// metrics (empty: no metrics), as in workqueue.TypedRateLimitingQueueConfig.
func New[T comparable](name string, rateLimiter workqueue.TypedRateLimiter[T], opts Options[T]) workqueue.TypedRateLimitingInterface[T] {
	group := opts.Group
	if group == nil {
		group = func(T) string { return "" }
	}
	base := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[T]{
		Name:            name,
		MetricsProvider: opts.MetricsProvider,
		Clock:           opts.Clock,
		Queue:           newOrder(group, opts.Weight),
	})
	delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{
		Name:            name,
		MetricsProvider: opts.MetricsProvider,
		Clock:           opts.Clock,
		Queue:           base,
	})
	return workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[T]{
		Name:            name,
		MetricsProvider: opts.MetricsProvider,
		Clock:           opts.Clock,
		DelayingQueue:   delaying,
	})
}
