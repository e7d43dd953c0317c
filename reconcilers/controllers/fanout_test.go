package controllers

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The controllers' watches of one type share one handler on its informer, which hands
// each event to every live watch, after its predicates; a watch whose controller
// stopped (its context ended) gets nothing more, and the objects the informer found at
// its start are not handed on (every controller reconciles all its objects at start).
func TestSharedWatchesHandEachEventToEveryLiveWatch(t *testing.T) {
	ctx := t.Context()
	informers := &informertest.FakeInformers{Scheme: scheme.Scheme}
	w := newSharedWatches(informers)
	// Each watch maps a Secret to a request named for the watch and the Secret.
	watch := func(name string, preds ...predicate.Predicate) (workqueue.TypedRateLimitingInterface[reconcile.Request], context.CancelFunc) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
		t.Cleanup(q.ShutDown)
		wctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		src := w.source(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: name, Name: o.GetName()}}}
		}), preds...)
		if err := src.Start(wctx, q); err != nil {
			t.Fatal(err)
		}
		return q, cancel
	}
	drain := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) []string {
		var out []string
		for q.Len() > 0 {
			r, _ := q.Get()
			out = append(out, r.Namespace+"/"+r.Name)
			q.Done(r)
			q.Forget(r)
		}
		return out
	}
	a, stopA := watch("a")
	b, _ := watch("b", predicate.Funcs{CreateFunc: func(e event.CreateEvent) bool { return e.Object.GetName() != "skip" }})
	inf, err := informers.FakeInformerFor(ctx, &corev1.Secret{})
	if err != nil {
		t.Fatal(err)
	}
	secret := func(name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}

	inf.Add(secret("one"))
	inf.Add(secret("skip"))
	if got := drain(a); len(got) != 2 || got[0] != "a/one" || got[1] != "a/skip" {
		t.Errorf("watch a got %v, want a/one and a/skip", got)
	}
	if got := drain(b); len(got) != 1 || got[0] != "b/one" {
		t.Errorf("watch b (its predicate refuses skip) got %v, want b/one", got)
	}

	// Objects listed at the informer's start are every controller's anyway.
	w.byType[reflect.TypeOf(&corev1.Secret{})].OnAdd(secret("initial"), true)
	if got := append(drain(a), drain(b)...); len(got) != 0 {
		t.Errorf("an object of the informer's initial list was handed on: %v", got)
	}

	// A's controller stopped: only b gets the next events.
	stopA()
	inf.Update(secret("one"), secret("one"))
	inf.Delete(secret("one"))
	if got := drain(a); len(got) != 0 {
		t.Errorf("the stopped watch a got %v", got)
	}
	if got := drain(b); len(got) != 1 || got[0] != "b/one" { // update and delete of one request
		t.Errorf("watch b got %v after a stopped, want b/one", got)
	}
}
