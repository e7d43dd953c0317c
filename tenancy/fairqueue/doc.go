// Package fairqueue is a client-go work queue whose hand-out order is weighted
// round-robin over groups of items (in the operator: one group per Tenant),
// so a tenant with thousands of pending reconciles does not starve a tenant
// with one.
//
// Only the order changes. The queue is client-go's own rate-limiting, delaying
// work queue with this package's ordering plugged in as its storage
// (workqueue.Queue), so deduplication of queued items, never handing out an
// item that is being processed, re-queueing on Done, AddAfter,
// AddRateLimited, Forget, NumRequeues, ShutDown, ShutDownWithDrain and metrics
// behave exactly as in every other controller.
package fairqueue
