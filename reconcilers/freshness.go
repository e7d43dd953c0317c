package reconcilers

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// read gets the object a reconcile is for, or nil (and no error) when it is
// gone. The cached copy is read again from the API server when it may predate
// this reconciler's last write (lastWrites), and when the object is being
// deleted: what is done in Azure follows its annotations as they are now
// (policyFor reads the namespace's the same way).
func (r *Reconciler) read(ctx context.Context, key types.NamespacedName) (azurev1alpha1.Resource, error) {
	obj := r.Kind.New()
	if err := r.Client.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.forget(key)
			r.auth.reset(key)
			r.lists.forget(key)
		}
		return nil, client.IgnoreNotFound(err)
	}
	if r.APIReader != nil && (r.writes.differs(obj) || !obj.GetDeletionTimestamp().IsZero()) {
		if err := r.APIReader.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				r.writes.forget(key)
			}
			return nil, client.IgnoreNotFound(err)
		}
		// Known fresh now: once the cache holds this version, it is read from
		// the cache again.
		r.writes.record(obj)
	}
	return obj, nil
}

// lastWrites remembers, per object, the resourceVersion this reconciler's
// last write left it at (or its last read from the API server found). The cache delivers our own writes a little later;
// a reconcile started meanwhile (by another watch, a Tenant change or a
// requeue) would act on the object as it was before that write, without the
// resume token or the ID just recorded, and could write to Azure again or
// call a resource it created a stranger's. A cached copy at another version
// is therefore read again from the API server. In the steady state nothing is
// written, the versions agree, and no extra read is made.
type lastWrites struct {
	mu sync.Mutex
	rv map[types.NamespacedName]string
}

func (w *lastWrites) record(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rv == nil {
		w.rv = map[types.NamespacedName]string{}
	}
	w.rv[client.ObjectKeyFromObject(obj)] = obj.GetResourceVersion()
}

// differs reports whether obj is at another version than the one last
// written or read fresh (older, or changed by someone since); false when the
// object was never written.
func (w *lastWrites) differs(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	rv, ok := w.rv[client.ObjectKeyFromObject(obj)]
	return ok && rv != obj.GetResourceVersion()
}

func (w *lastWrites) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.rv, key)
}
