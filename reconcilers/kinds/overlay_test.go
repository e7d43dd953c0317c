package kinds_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/reconcilers"
)

// Azure answers some values in another spelling of the same meaning, and the emulator,
// answering from Azure's examples, does too: Azure SQL a database's SKU "GP" of family
// Gen5 as "GP_Gen5" and an elastic pool's "HS_Gen5_4" as "HS_Gen5" (taken by the
// overlays serversdatabase_overlay.go and serverselasticpool_overlay.go, a generated
// kind's hand-written hook), Key Vault a single address of its network rules as its /32
// range (taken by the normalize fact api/kinds.yaml gives the Vault). Each is Ready, has
// nothing recorded as Azure keeping its own value, and is not written again over three
// syncs. Without the overlays or the fact, status.azureKeeps would list the path.
func TestAnsweredSpellingsMeanTheSpec(t *testing.T) {
	t.Parallel()
	const ns, rg = "spellings", "spellings-rg"
	s := newStackOf(t, "sql.aztenant.io;keyvault.aztenant.io", ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	must(t, s.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sample-admin-password"},
		StringData: map[string]string{"password": "first-Passw0rd!"}}))
	server := loadSample(t, s, "sql/server.yaml", ns, rg, "", nil)
	s.Create(t, server)
	s.WaitReady(t, server, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	for _, c := range []struct {
		sample   string
		edit     func(spec map[string]any)
		path     []string // in Azure's answer
		answered any
	}{
		{"sql/serversdatabase.yaml", func(s map[string]any) { s["sku"] = map[string]any{"name": "GP", "family": "Gen5", "capacity": 2} },
			[]string{"sku", "name"}, "GP_Gen5"},
		{"sql/serverselasticpool.yaml", func(s map[string]any) { s["sku"] = map[string]any{"name": "HS_Gen5_4"} },
			[]string{"sku", "name"}, "HS_Gen5"},
		{"keyvault/vault.yaml", func(s map[string]any) {
			s["networkAcls"] = map[string]any{"defaultAction": "Deny", "bypass": "AzureServices",
				"ipRules": []any{map[string]any{"value": "124.56.78.91"}, map[string]any{"value": "10.91.4.0/24"}}}
		}, []string{"properties", "networkAcls", "ipRules"}, []any{map[string]any{"value": "124.56.78.91/32"}, map[string]any{"value": "10.91.4.0/24"}}},
	} {
		o := loadSample(t, s, c.sample, ns, rg, "", c.edit)
		o.SetAnnotations(map[string]string{reconcilers.AnnotationSyncPeriod: "1s"})
		s.Create(t, o)
		s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
		id := o.AzureStatus().ID
		if got := lookup(s.AzureBody(t, id), c.path); !reflect.DeepEqual(got, c.answered) {
			t.Fatalf("%s: Azure answered %s %s, want %s (the examples' answer)", c.sample, strings.Join(c.path, "."), js(got), js(c.answered))
		}
		suffix := strings.ToLower(id[strings.Index(id, "/providers/"):])
		reads := s.Reads(id)
		until(t, c.sample+": three syncs", func() bool { return s.Reads(id) >= reads+3 })
		if n := strings.Count(methods(s.ARMCalls(suffix)), "PUT"); n != 1 {
			t.Errorf("%s: %d PUTs after the create and three syncs, want 1", c.sample, n)
		}
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
		if k := o.AzureStatus().AzureKeeps; k != nil && len(k.Paths) > 0 {
			t.Errorf("%s: status.azureKeeps %s: the answer was taken for Azure keeping its own value", c.sample, js(k))
		}
	}
}
