package kinds_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/reconcilers"
)

// An overlay's hook reaches the reconciler of a generated kind: Azure SQL answers a
// database's SKU "GP" of family Gen5 as "GP_Gen5" and an elastic pool's "HS_Gen5_4" as
// "HS_Gen5" (the emulator answering from Azure's examples), and the overlays
// (serversdatabase_overlay.go, serverselasticpool_overlay.go) take each for the spec's
// SKU: Ready, nothing kept as Azure's own value, no second PUT over three syncs.
func TestOverlaySQLSkuNames(t *testing.T) {
	t.Parallel()
	const ns, rg = "overlay", "overlay-rg"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	must(t, s.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sample-admin-password"},
		StringData: map[string]string{"password": "first-Passw0rd!"}}))
	server := loadSample(t, s, "sql/server.yaml", ns, rg, "", nil)
	s.Create(t, server)
	s.WaitReady(t, server, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	for _, c := range []struct {
		sample   string
		sku      map[string]any
		answered string
	}{
		{"sql/serversdatabase.yaml", map[string]any{"name": "GP", "family": "Gen5", "capacity": 2}, "GP_Gen5"},
		{"sql/serverselasticpool.yaml", map[string]any{"name": "HS_Gen5_4"}, "HS_Gen5"},
	} {
		o := loadSample(t, s, c.sample, ns, rg, "", func(spec map[string]any) { spec["sku"] = c.sku })
		o.SetAnnotations(map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
		s.Create(t, o)
		s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
		id := o.AzureStatus().ID
		if got := s.AzureBody(t, id)["sku"].(map[string]any)["name"]; got != c.answered {
			t.Fatalf("%s: Azure answered sku.name %v, want %s (the examples' answer)", c.sample, got, c.answered)
		}
		suffix := strings.ToLower(id[strings.Index(id, "/providers/"):])
		reads := s.Reads(id)
		until(t, c.sample+": three syncs", func() bool { return s.Reads(id) >= reads+3 })
		if n := strings.Count(methods(s.ARMCalls(suffix)), "PUT"); n != 1 {
			t.Errorf("%s: %d PUTs after the create and three syncs, want 1", c.sample, n)
		}
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
		if keeps(o, "sku.name") || keeps(o, "sku") {
			t.Errorf("%s: status.azureKeeps %s lists the SKU: the overlay's Equivalent did not apply", c.sample, js(o.AzureStatus().AzureKeeps))
		}
	}
}
