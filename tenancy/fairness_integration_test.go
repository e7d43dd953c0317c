package tenancy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// slowReconciler stands in for an ARM reconciler: each reconcile takes a
// while, and it records the order in which namespaces were served.
type slowReconciler struct {
	mu    sync.Mutex
	count map[string]int // reconciles per namespace
	seen  map[string]int // object -> reconciles of the big tenant before its first one
	big   string
}

func (r *slowReconciler) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	if _, ok := r.seen[req.String()]; !ok {
		r.seen[req.String()] = r.count[r.big]
	}
	r.count[req.Namespace]++
	r.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	return reconcile.Result{}, nil
}

// snapshot returns how many big-tenant reconciles ran, and for key whether it
// was reconciled and how many big-tenant reconciles had run before it.
func (r *slowReconciler) snapshot(key string) (bigDone, before int, reconciled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	before, reconciled = r.seen[key]
	return r.count[r.big], before, reconciled
}

// TestSmallTenantServedEarlyOnAPIServer: tenant "fair-big" has a backlog of
// ConfigMaps being reconciled by a real controller (2 workers, 10ms each)
// when tenant "fair-small" creates one. With the Directory's queue the small
// object is reconciled after a handful of the big tenant's items, not after
// the whole backlog as with a FIFO queue.
func TestSmallTenantServedEarlyOnAPIServer(t *testing.T) {
	const backlog = 600
	env := testenv.Get(t)
	c := env.Client
	create(t, c,
		namespace("fair-big", nil), namespace("fair-small", nil),
		tenant("fair-big", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"fair-big"} }),
		tenant("fair-small", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"fair-small"} }),
	)
	for i := range backlog {
		create(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fair-big", Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"fair": "yes"}}})
	}

	r := &slowReconciler{count: map[string]int{}, seen: map[string]int{}, big: "fair-big"}
	startManager(t, func(mgr ctrl.Manager, dir *Directory) error {
		return ctrl.NewControllerManagedBy(mgr).
			Named("fair-configmaps").
			For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()["fair"] == "yes"
			}))).
			WithOptions(controller.Options{MaxConcurrentReconciles: 2, NewQueue: dir.NewQueue}).
			Complete(r)
	})

	// Let the backlog start draining, then the small tenant arrives.
	testenv.Eventually(t, time.Minute, "backlog to be in progress", func() (bool, string) {
		done, _, _ := r.snapshot("")
		return done >= 20, fmt.Sprintf("%d big reconciles", done)
	})
	create(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fair-small", Name: "only", Labels: map[string]string{"fair": "yes"}}})
	bigAtCreate, _, _ := r.snapshot("")

	key := "fair-small/only"
	testenv.Eventually(t, time.Minute, "small tenant's object to be reconciled", func() (bool, string) {
		_, _, ok := r.snapshot(key)
		return ok, "not yet"
	})
	bigDone, before, _ := r.snapshot(key)
	served := before - bigAtCreate
	t.Logf("small tenant reconciled after %d of the big tenant's reconciles since it was created (%d big done in all, backlog %d)", served, bigDone, backlog)
	// FIFO would serve the rest of the backlog first (>= 500 here). Weighted
	// round-robin serves it on the next turn; allow generously for watch
	// delivery delay while the 2 workers keep going.
	if served > backlog/4 {
		t.Fatalf("small tenant waited for %d of the big tenant's reconciles; want it served early", served)
	}
	if before >= backlog {
		t.Fatalf("small tenant was served after the whole backlog")
	}
}
