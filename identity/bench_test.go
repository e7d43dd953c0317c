package identity_test

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/aztenant/aztenant/identity"
)

// BenchmarkCredentialForCached is the broker's cost on every reconcile once an
// identity is warm: a resolution and a credential from maps kept current by
// informer events.
// Aim: under 10 µs.
func BenchmarkCredentialForCached(b *testing.B) {
	w := newWorld(b, "bench", "bench-b")
	tenantNamespace(b, w.c, "bench", clientA)
	c, err := cache.New(w.env.Config, cache.Options{Scheme: w.env.Scheme, DefaultNamespaces: map[string]cache.Config{"bench": {}}, DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	go c.Start(ctx)
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("cache did not sync")
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: w.c}, time.Hour)
	broker := identity.NewBroker(c, identity.NewCredentials(tokens, w.opts))
	if err := broker.CacheResolutions(ctx, c); err != nil {
		b.Fatal(err)
	}
	obj := resource("bench", nil)
	var cred any
	// The first call builds the informers for Identity and ServiceAccount.
	for cred == nil {
		if got, _, err := broker.CredentialFor(ctx, obj); err == nil {
			cred = got
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		got, _, err := broker.CredentialFor(ctx, obj)
		if err != nil || got != cred {
			b.Fatalf("credential changed or failed: %v", err)
		}
	}
}
