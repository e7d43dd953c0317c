package tenancy

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aztenant/aztenant/tenancy/fairqueue"
)

// NewQueue has the signature of controller.Options.NewQueue: a client-go
// rate-limiting work queue that serves Tenants by weighted round-robin
// (spec.weight), each Tenant's namespaces sharing one turn, namespaces
// without a Tenant getting a turn each.
//
//	ctrl.NewControllerManagedBy(mgr).For(&v1.StorageAccount{}).
//		WithOptions(controller.Options{NewQueue: dir.NewQueue}).Complete(r)
func (d *Directory) NewQueue(controllerName string, rateLimiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return fairqueue.New(controllerName, rateLimiter, fairqueue.Options[reconcile.Request]{
		Group:  func(r reconcile.Request) string { return d.GroupOf(r.Namespace) },
		Weight: d.WeightOf,
	})
}
