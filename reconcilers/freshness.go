package reconcilers

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

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
