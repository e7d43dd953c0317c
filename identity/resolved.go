package identity

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
)

// resolvedCache remembers resolutions per (namespace, identity name). Reading
// the Identity and ServiceAccount from the informer cache costs tens of
// microseconds (REST mapping and deep copies); this makes a warm lookup a map
// read. Any event on an Identity or ServiceAccount drops its namespace's entries.
type resolvedCache struct {
	mu      sync.RWMutex
	entries map[client.ObjectKey]*Resolved
	// epoch counts invalidations per namespace, so a resolution that raced
	// with a change is not stored.
	epoch map[string]uint64
}

func (c *resolvedCache) get(ns, name string) (*Resolved, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[client.ObjectKey{Namespace: ns, Name: name}], c.epoch[ns]
}

func (c *resolvedCache) put(ns, name string, r *Resolved, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch[ns] == epoch {
		c.entries[client.ObjectKey{Namespace: ns, Name: name}] = r
	}
}

func (c *resolvedCache) invalidate(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	ns := o.GetNamespace()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch[ns]++
	for k := range c.entries {
		if k.Namespace == ns {
			delete(c.entries, k)
		}
	}
}

// CacheResolutions makes the broker remember resolutions, dropping them on
// every Identity and ServiceAccount event seen by informers (the manager's
// cache). Without it every call reads both objects.
func (b *Broker) CacheResolutions(ctx context.Context, informers cache.Informers) error {
	rc := &resolvedCache{entries: map[client.ObjectKey]*Resolved{}, epoch: map[string]uint64{}}
	h := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { rc.invalidate(obj) },
		UpdateFunc: func(_, obj any) { rc.invalidate(obj) },
		DeleteFunc: rc.invalidate,
	}
	for _, obj := range []client.Object{&identityv1alpha1.Identity{}, &corev1.ServiceAccount{}} {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return err
		}
	}
	b.resolved = rc
	return nil
}
