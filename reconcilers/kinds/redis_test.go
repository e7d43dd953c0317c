package kinds_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	cachev1alpha1 "github.com/aztenant/aztenant/api/cache/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

func redisID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.Cache/redis/" + name
}

func redisCache(ns, name, rg, secret string) *cachev1alpha1.Redis {
	r := &cachev1alpha1.Redis{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cachev1alpha1.RedisSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: "westeurope",
			Sku:              cachev1alpha1.RedisSku{Name: "Basic", Family: "C", Capacity: 0},
			EnableNonSslPort: ptr.To(false),
		},
	}
	if secret != "" {
		r.Spec.OperatorSpec = &cachev1alpha1.RedisOperatorSpec{Secrets: &cachev1alpha1.RedisOperatorSecrets{
			PrimaryKey:   &azurev1alpha1.SecretDestination{Name: secret, Key: "primaryKey"},
			SecondaryKey: &azurev1alpha1.SecretDestination{Name: secret, Key: "secondaryKey"},
			HostName:     &azurev1alpha1.SecretDestination{Name: secret, Key: "host"},
			SSLPort:      &azurev1alpha1.SecretDestination{Name: secret, Key: "sslPort"},
		}}
	}
	return r
}

// A cache (created with provisioningState polling, as Azure does) exports its
// keys and host to a Secret it owns; a resize writes once, a resync writes
// nothing, the plain-text port opened in the portal is closed again, a
// regenerated primary key reaches the Secret on aztenant.io/refresh-secrets,
// and deletion removes the cache.
func TestRedisLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "redis"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "redis-rg", nil, nil))
	r := redisCache(ns, "redis-app", "redis-rg", "redis-app-conn")
	s.Create(t, r)
	s.WaitReady(t, r, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id, path := redisID("redis-rg", "redis-app"), "/redis/redis-app"
	if got := methods(s.ARMCalls(path)); !strings.HasPrefix(got, "GET PUT") || strings.Count(got, "PUT") != 1 {
		t.Fatalf("create made %q, want one PUT", got)
	}
	// Azure answers Redis's location by display name and its type as
	// Microsoft.Cache/Redis: neither is drift (the resync below makes no PUT).
	if body := s.AzureBody(t, id); body["location"] != "West Europe" || body["type"] != "Microsoft.Cache/Redis" {
		t.Errorf("Azure answered location %v, type %v; the test expects Azure's own spelling", body["location"], body["type"])
	}
	if r.Status.HostName != "redis-app.redis.cache.windows.net" || r.Status.SSLPort == nil || *r.Status.SSLPort != 6380 {
		t.Errorf("status %+v", r.Status)
	}

	keys := s.platformAction(t, id, "listKeys", "2024-03-01", nil)
	data, sec := s.secretData(t, ns, "redis-app-conn")
	want := map[string]string{"primaryKey": keys["primaryKey"].(string), "secondaryKey": keys["secondaryKey"].(string),
		"host": "redis-app.redis.cache.windows.net", "sslPort": "6380"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("Secret %s = %q, want %q", k, data[k], v)
		}
	}
	if !metav1.IsControlledBy(sec, r) {
		t.Errorf("the Secret is not owned by the cache: %+v", sec.OwnerReferences)
	}

	// An unchanged resync writes nothing.
	n := len(s.ARMCalls(path))
	s.Touch(t, r, "1")
	if got := s.Settled(t, path, n+1); strings.Count(got, "PUT") != 1 {
		t.Errorf("a resync made %q in all, want no second PUT", got)
	}

	// A resize writes exactly once; from now on sync every second.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(r), r))
	r.Spec.Sku.Capacity = 1
	r.Annotations[reconcilers.AnnotationSyncPeriod] = "1s"
	must(t, s.Client.Update(ctx, r))
	s.WaitReady(t, r, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	until(t, "capacity 1 in Azure", func() bool {
		sku := s.AzureBody(t, id)["properties"].(map[string]any)["sku"].(map[string]any)
		return sku["capacity"] == float64(1)
	})
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 2 {
		t.Errorf("%d PUTs after one resize, want 2 in all", n)
	}

	// The plain-text port opened in the portal is closed at the next sync.
	_, err := s.Emu.PatchResource(ctx, id, []byte(`{"properties":{"enableNonSslPort":true}}`))
	must(t, err)
	until(t, "non-SSL port closed again", func() bool {
		return s.AzureBody(t, id)["properties"].(map[string]any)["enableNonSslPort"] == false
	})
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 3 {
		t.Errorf("%d PUTs after the drift, want exactly one more (3)", n)
	}

	// The primary key regenerated in Azure reaches the Secret on refresh-secrets.
	rotated := s.platformAction(t, id, "regenerateKey", "2024-03-01", map[string]string{"keyType": "Primary"})["primaryKey"].(string)
	s.annotate(t, r, reconcilers.AnnotationRefreshSecrets, "rotated")
	until(t, "rotated primary key in the Secret", func() bool {
		d, _ := s.secretData(t, ns, "redis-app-conn")
		return d["primaryKey"] == rotated
	})

	must(t, s.Client.Delete(ctx, r))
	until(t, "cache object gone", func() bool { return s.Gone(r) })
	if _, err := s.Emu.Resource(id); err == nil {
		t.Error("the cache still exists in Azure")
	}
}

// A Secret the cache does not own is never overwritten: the cache exists and
// Ready says which Secret is in the way.
func TestRedisExportConflict(t *testing.T) {
	t.Parallel()
	const ns = "redisconf"
	s := newStack(t, ns)
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-secrets"}, StringData: map[string]string{"primaryKey": "mine"}})
	s.Create(t, resourceGroup(ns, "redisconf-rg", nil, nil))
	r := redisCache(ns, "redisconf-app", "redisconf-rg", "app-secrets")
	s.Create(t, r)
	s.WaitReady(t, r, metav1.ConditionFalse, reconcilers.ReasonExportConflict)
	if msg := meta.FindStatusCondition(r.Status.Conditions, "Ready").Message; !strings.Contains(msg, `"app-secrets"`) {
		t.Errorf("message %q does not name the Secret", msg)
	}
	if _, err := s.Emu.Resource(redisID("redisconf-rg", "redisconf-app")); err != nil {
		t.Errorf("the cache was not created: %v", err)
	}
	data, sec := s.secretData(t, ns, "app-secrets")
	if data["primaryKey"] != "mine" || len(data) != 1 || len(sec.OwnerReferences) != 0 {
		t.Errorf("the foreign Secret was changed: %v %v", data, sec.OwnerReferences)
	}
}
