package kinds_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

// annotate sets one annotation with a merge patch (the operator writing the
// object meanwhile does not make it conflict).
func (s *stack) annotate(t *testing.T, obj client.Object, key, value string) {
	t.Helper()
	must(t, s.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj))
	base := obj.DeepCopyObject().(client.Object)
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[key] = value
	obj.SetAnnotations(a)
	must(t, s.Client.Patch(t.Context(), obj, client.MergeFrom(base)))
}

// Keys are read from Azure (listKeys, a POST against ARM's write budget)
// once, not at every sync: again only when the Secret is deleted or its key
// changed, when aztenant.io/refresh-secrets changes, and when the secret
// refresh period passed. The ConfigMap, which needs no POST, is written at
// every sync as before.
func TestSecretsReadOnlyWhenDue(t *testing.T) {
	t.Parallel()
	const ns = "nopost"
	cfg := stacktest.DefaultConfig()
	cfg.SyncPeriod = time.Second
	s := newStackWith(t, cfg, ns)
	ctx := t.Context()

	rg := resourceGroup(ns, "nopost-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	sa := &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nopostsa"},
		Spec: storagev1alpha1.StorageAccountSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "nopost-rg"}, Location: "westeurope", Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{
				Secrets:    &storagev1alpha1.StorageAccountOperatorSecrets{Key1: &azurev1alpha1.SecretDestination{Name: "nopostsa-keys", Key: "key1"}},
				ConfigMaps: &storagev1alpha1.StorageAccountOperatorConfigMaps{BlobEndpoint: &azurev1alpha1.ConfigMapDestination{Name: "nopostsa-endpoints", Key: "blob"}},
			},
		},
	}
	s.Create(t, sa)
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id := storageAccountID("nopost-rg", "nopostsa")
	path := "/storageAccounts/nopostsa"

	// The operator's POSTs (the test's own listKeys is the platform's).
	posts := func() []time.Time {
		var out []time.Time
		for _, e := range s.ARMCalls(path + "/listKeys") {
			if e.Method == "POST" && e.ClientID == s.ClientID[ns] {
				out = append(out, e.Time)
			}
		}
		return out
	}
	// syncs waits for n more syncs (each reads the account, by GET or in a
	// listing of the group's accounts).
	syncs := func(n int) {
		t.Helper()
		from := s.Reads(id)
		until(t, "more syncs", func() bool { return s.Reads(id) >= from+n })
	}
	wantPosts := func(what string, n int) {
		t.Helper()
		if got := len(posts()); got != n {
			t.Fatalf("%s: %d listKeys POSTs in all, want %d", what, got, n)
		}
	}
	key1 := func() string {
		d, _ := s.secretData(t, ns, "nopostsa-keys")
		return d["key1"]
	}
	azureKey1 := func() string { return storageKey(s.platformAction(t, id, "listKeys", "2023-05-01", nil), "key1") }

	if k := key1(); k == "" || k != azureKey1() {
		t.Fatalf("Secret key1 %q is not Azure's", k)
	}
	wantPosts("created", 1)
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(sa), sa))
	if r := sa.Status.SecretsRead; r == nil || r.ExportsHash == "" || r.Generation != sa.Generation || r.Time.IsZero() {
		t.Errorf("status.secretsRead %+v", r)
	}

	// Steady state: syncs read the account, never the keys; the ConfigMap
	// deleted is written again without a POST.
	syncs(3)
	wantPosts("three syncs", 1)
	must(t, s.Client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nopostsa-endpoints"}}))
	until(t, "ConfigMap written again", func() bool {
		var cm corev1.ConfigMap
		return s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nopostsa-endpoints"}, &cm) == nil && cm.Data["blob"] != ""
	})
	wantPosts("ConfigMap deleted", 1)

	// The Secret deleted: read once, and it is back.
	must(t, s.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nopostsa-keys"}}))
	until(t, "Secret written again", func() bool {
		var sec corev1.Secret
		return s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nopostsa-keys"}, &sec) == nil && len(sec.Data["key1"]) > 0
	})
	syncs(2)
	wantPosts("Secret deleted", 2)

	// Its key changed by someone: read once, and put back.
	_, sec := s.secretData(t, ns, "nopostsa-keys")
	sec.Data["key1"] = []byte("tampered")
	must(t, s.Client.Update(ctx, sec))
	until(t, "key1 put back", func() bool { return key1() == azureKey1() })
	syncs(2)
	wantPosts("key1 changed", 3)

	// Rotated in Azure: not seen at a sync, but at a new refresh-secrets value.
	rotated := storageKey(s.platformAction(t, id, "regenerateKey", "2023-05-01", map[string]string{"keyName": "key1"}), "key1")
	syncs(2)
	if key1() == rotated {
		t.Fatal("the rotated key reached the Secret without a refresh")
	}
	s.annotate(t, sa, reconcilers.AnnotationRefreshSecrets, "1")
	until(t, "rotated key1 in the Secret", func() bool { return key1() == rotated })
	syncs(2)
	wantPosts("refresh-secrets changed", 4)
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(sa), sa))
	if r := sa.Status.SecretsRead; r == nil || r.Refresh != "1" {
		t.Errorf("status.secretsRead %+v, want refresh \"1\"", r)
	}

	// A refresh period of 3s: read again once it passed, not at every sync
	// (the read's time is kept to the second, so it may come up to 1s early).
	s.annotate(t, sa, reconcilers.AnnotationSecretRefreshPeriod, "3s")
	until(t, "two reads by the refresh period", func() bool { return len(posts()) >= 6 })
	p := posts()
	if gap := p[5].Sub(p[4]); gap < 2*time.Second {
		t.Errorf("reads %v apart with a refresh period of 3s", gap)
	}
	s.annotate(t, sa, reconcilers.AnnotationSecretRefreshPeriod, "1 day")
	s.WaitReady(t, sa, metav1.ConditionFalse, reconcilers.ReasonInvalidSpec)
}
