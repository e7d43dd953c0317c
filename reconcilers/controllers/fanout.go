package controllers

import (
	"context"
	"reflect"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// sharedWatches are the watches every kind's controller has of the same
// types (Identities, Namespaces, Secrets, ConfigMaps, Tenants, the owner
// kinds): one handler on each type's informer, which hands each event to
// the controllers that watch the type (fanout), instead of one handler per
// controller. With controller-runtime's source.Kind, each of hundreds of
// controllers added its own handler to each of these informers: two
// goroutines and a buffer each, and every event copied to each of them. A
// controller's watch ends with its context (the controller stopped).
type sharedWatches struct {
	cache  cache.Cache
	mu     sync.Mutex
	byType map[reflect.Type]*fanout
}

func newSharedWatches(c cache.Cache) *sharedWatches {
	return &sharedWatches{cache: c, byType: map[reflect.Type]*fanout{}}
}

// source is a watch of obj's type for one controller: h, after preds, with
// its queue. Events that list the objects the informer found when it started
// (IsInInitialList) are not handed on: every controller reconciles all its
// objects when it starts.
func (w *sharedWatches) source(obj client.Object, h handler.EventHandler, preds ...predicate.Predicate) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		f, err := w.fanoutOf(ctx, obj)
		if err != nil {
			return err
		}
		s := &subscriber{ctx: ctx, handler: h, preds: preds, queue: q}
		f.add(s)
		context.AfterFunc(ctx, func() { f.remove(s) }) // no goroutine waits for it
		return nil
	})
}

// forget drops the fanout of obj's type, whose informer was removed (its
// kind retired): a watch started later adds a handler to the new informer.
func (w *sharedWatches) forget(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byType, reflect.TypeOf(obj))
}

// fanoutOf is the fanout of obj's type, with its handler on the informer.
func (w *sharedWatches) fanoutOf(ctx context.Context, obj client.Object) (*fanout, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := reflect.TypeOf(obj)
	if f := w.byType[t]; f != nil {
		return f, nil
	}
	inf, err := w.cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, err
	}
	f := &fanout{subs: map[*subscriber]struct{}{}}
	if _, err := inf.AddEventHandler(f); err != nil {
		return nil, err
	}
	w.byType[t] = f
	return f, nil
}

// fanout is one informer handler that hands each event to its subscribers.
type fanout struct {
	mu   sync.RWMutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ctx     context.Context
	handler handler.EventHandler
	preds   []predicate.Predicate
	queue   workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func (f *fanout) add(s *subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[s] = struct{}{}
}

func (f *fanout) remove(s *subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, s)
}

// each calls fn for each subscriber whose context is live.
func (f *fanout) each(fn func(*subscriber)) {
	f.mu.RLock()
	subs := make([]*subscriber, 0, len(f.subs))
	for s := range f.subs {
		subs = append(subs, s)
	}
	f.mu.RUnlock()
	for _, s := range subs {
		if s.ctx.Err() == nil {
			fn(s)
		}
	}
}

func (f *fanout) OnAdd(obj any, isInInitialList bool) {
	o, ok := obj.(client.Object)
	if !ok || isInInitialList {
		return
	}
	e := event.CreateEvent{Object: o}
	f.each(func(s *subscriber) {
		for _, p := range s.preds {
			if !p.Create(e) {
				return
			}
		}
		s.handler.Create(s.ctx, e, s.queue)
	})
}

func (f *fanout) OnUpdate(oldObj, newObj any) {
	o, ok1 := oldObj.(client.Object)
	n, ok2 := newObj.(client.Object)
	if !ok1 || !ok2 {
		return
	}
	e := event.UpdateEvent{ObjectOld: o, ObjectNew: n}
	f.each(func(s *subscriber) {
		for _, p := range s.preds {
			if !p.Update(e) {
				return
			}
		}
		s.handler.Update(s.ctx, e, s.queue)
	})
}

func (f *fanout) OnDelete(obj any) {
	e := event.DeleteEvent{}
	switch o := obj.(type) {
	case client.Object:
		e.Object = o
	case toolscache.DeletedFinalStateUnknown: // missed the deletion: the last state known
		if e.Object, _ = o.Obj.(client.Object); e.Object == nil {
			return
		}
		e.DeleteStateUnknown = true
	default:
		return
	}
	f.each(func(s *subscriber) {
		for _, p := range s.preds {
			if !p.Delete(e) {
				return
			}
		}
		s.handler.Delete(s.ctx, e, s.queue)
	})
}
