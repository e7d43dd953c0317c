package reconcilers

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A request whose namespace the replica does not own (--shards) is dropped
// before anything is read: this Reconciler has no client, registry or
// broker, so any read or ARM call would panic.
func TestReconcileSkipsNamespacesNotOwned(t *testing.T) {
	asked := ""
	r := &Reconciler{Owns: func(ns string) bool { asked = ns; return false }}
	res, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-b", Name: "rg"}})
	if err != nil || res != (reconcile.Result{}) {
		t.Errorf("Reconcile = %v, %v; want nothing", res, err)
	}
	if asked != "team-b" {
		t.Errorf("Owns asked about %q", asked)
	}
}
