package tenancy

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// changeFeed collects namespaces whose admission may have changed for one
// subscriber. The index adds to it under its own lock and never blocks: names
// accumulate (as a set) until the subscriber's goroutine takes them.
type changeFeed struct {
	mu      sync.Mutex
	pending map[string]struct{}
	wake    chan struct{} // capacity 1: "pending is not empty"
}

func (f *changeFeed) add(namespaces []string) {
	if len(namespaces) == 0 {
		return
	}
	f.mu.Lock()
	for _, ns := range namespaces {
		f.pending[ns] = struct{}{}
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default: // already signalled
	}
}

func (f *changeFeed) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Sorted(maps.Keys(f.pending))
	clear(f.pending)
	return out
}

// Subscribe returns a channel receiving batches of namespaces whose Tenant
// selection or Tenant policy changed after the index synced: objects there
// were admitted or denied on what the index said before, and must be looked
// at again. A batch is sent only after the index itself has the change, so a
// lookup made on receipt sees it (an event handler of its own on the Tenant
// informer would race with the index's).
//
// Changes coalesce while the receiver is busy; none are dropped. The channel
// is closed when ctx is done.
func (x *Index) Subscribe(ctx context.Context) <-chan []string {
	f := &changeFeed{pending: map[string]struct{}{}, wake: make(chan struct{}, 1)}
	x.feedsMu.Lock()
	x.feeds = append(x.feeds, f)
	x.feedsMu.Unlock()
	out := make(chan []string)
	go func() {
		defer close(out)
		defer x.unsubscribe(f)
		for {
			select {
			case <-ctx.Done():
				return
			case <-f.wake:
			}
			batch := f.take()
			if len(batch) == 0 {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case out <- batch:
			}
		}
	}()
	return out
}

func (x *Index) unsubscribe(f *changeFeed) {
	x.feedsMu.Lock()
	defer x.feedsMu.Unlock()
	x.feeds = slices.DeleteFunc(x.feeds, func(g *changeFeed) bool { return g == f })
}

// notify hands changed namespaces to every subscriber. Changes before the
// initial lists are in are not sent: until then lookups list through the
// cache-backed reader, which is never behind the index, and every object is
// reconciled at start anyway.
func (x *Index) notify(namespaces []string) {
	if len(namespaces) == 0 || !x.Synced() {
		return
	}
	x.feedsMu.Lock()
	defer x.feedsMu.Unlock()
	for _, f := range x.feeds {
		f.add(namespaces)
	}
}
