package kinds_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
)

// Drift checks by list: eight identities of one resource group, each with a
// 2 s sync period, are compared with Azure by one list of the group's
// identities per period, not a GET each; an identity changed in Azure is read
// by GET and written back.
func TestDriftChecksByList(t *testing.T) {
	t.Parallel()
	const ns, rg, n = "dlist", "dlist-rg", 8
	s := newStack(t, ns)
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	var uais []string
	for i := range n {
		uai := userAssignedIdentity(ns, fmt.Sprintf("app-%d", i), rg)
		uai.Annotations = map[string]string{reconcilers.AnnotationSyncPeriod: "2s"}
		uai.Spec.Tags = map[string]string{"team": "a"}
		s.Create(t, uai)
		uais = append(uais, uai.Name)
	}
	for _, name := range uais {
		uai := userAssignedIdentity(ns, name, rg)
		s.WaitReady(t, uai, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	}
	coll := strings.ToLower(rgID(rg) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities")
	reads := func(since uint64) (lists, gets int) {
		for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: since, Service: "arm", Method: "GET"}) {
			p := strings.ToLower(e.Path)
			switch {
			case p == coll:
				lists++
			case strings.HasPrefix(p, coll+"/"):
				gets++
			}
		}
		return lists, gets
	}
	seq := func() uint64 { return s.Emu.Audit(emulator.AuditFilter{Limit: 1})[0].Seq }

	// Past the first checks after creation (which gather the identities
	// into one collection), then three periods of steady state.
	start := seq()
	until(t, "two listings", func() bool { l, _ := reads(start); return l >= 2 })
	steady := seq()
	until(t, "three more listings", func() bool { l, _ := reads(steady); return l >= 3 })
	lists, gets := reads(steady)
	t.Logf("steady state: %d lists and %d GETs for %d identities in about 3 periods: %.3f reads per resource per period", lists, gets, n, float64(lists+gets)/float64(3*n))
	if gets != 0 {
		t.Errorf("%d GETs of single identities in steady state, want none (all compared with listings)", gets)
	}

	// Someone changes a tag in the portal: the listing shows it, a GET
	// confirms it, and the next write puts it back.
	drift := seq()
	id := identityID(rg, "app-3")
	if _, err := s.Emu.PatchResource(t.Context(), id, []byte(`{"tags":{"team":"eve"}}`)); err != nil {
		t.Fatal(err)
	}
	until(t, "drift reverted", func() bool { return s.azureTags(t, id)["team"] == "a" })
	got := methods(s.ARMCalls("/userAssignedIdentities/app-3"))
	if !strings.Contains(got, "GET PUT") {
		t.Errorf("the drifted identity's calls were %q: want a GET before the PUT that reverted it", got)
	}
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: drift, Service: "arm", Method: "PUT"}) {
		if !strings.EqualFold(e.Path, id) {
			t.Errorf("PUT %s: only the drifted identity is written", e.Path)
		}
	}
}
