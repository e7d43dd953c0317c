// Package tenancy decides, for the operator, which namespaces are tenants and
// what each of them may touch in Azure.
//
// It owns four things:
//
//   - Which namespaces are served and by which Tenant: a Directory answers
//     TenantFor and Serves from an in-memory Index fed by Tenant and Namespace
//     informers (listing through the client until the informers have synced),
//     so the question costs a map lookup on every reconcile. A namespace
//     selected by two Tenants is a ConflictError, never a silent choice.
//   - What a tenant's resources may touch: the Guard parses the ARM ID a
//     reconciler is about to call, checks that it lies inside the subscription
//     and resource group the reconciler claims, and that the Tenant allows that
//     subscription, resource group, location and kind. Denials are
//     *DeniedError values with reason TenantPolicyDenied, meant to be copied
//     into the object's Ready condition.
//   - References never cross namespaces: SameNamespace is the one check that
//     owners, secret and config-map references and identity references use,
//     because the namespace is the trust boundary (the trust model, described
//     once in package [github.com/aztenant/aztenant/reconcilers]).
//   - Status of Tenants: TenantReconciler keeps status.namespaces and the
//     Ready condition (NamespaceConflict, InvalidSelector) current as
//     Namespaces and Tenants change.
//
// Per-tenant fairness of work lives in the sub-package fairqueue (a client-go
// work queue served by weighted round-robin over tenants; Directory.GroupOf and
// Directory.WeightOf feed it), per-identity ARM request budgets in armlimit, and
// onboarding (a Tenant's spec.onboarding carried out with the platform identity,
// and undone) in onboarding.
//
// Wiring (internal/operator does it for cmd/operator):
//
//	var mode tenancy.ServeMode // flag.Var(&mode, "served-namespaces", "tenants|all|ns1,ns2")
//	dir := tenancy.NewDirectory(mgr.GetClient(), mode)
//	if err := dir.SetupWithManager(mgr); err != nil { ... }          // event-fed index
//	if err := (&tenancy.TenantReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil { ... }
//	guard := tenancy.NewGuard(dir)                                    // reconcilers: guard.Admit(ctx, obj, target)
//	ctrl.NewControllerManagedBy(mgr).For(&storagev1.StorageAccount{}).
//		WithOptions(controller.Options{NewQueue: dir.NewQueue}).Complete(r) // per-tenant fairness
//	limits := armlimit.New(armlimit.DefaultOptions())                 // limits.Wait(ctx, principal, write)
package tenancy
