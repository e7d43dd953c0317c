package faults_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/bench"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// The operator's cached ServiceAccount token (10 minutes, refreshed by the
// operator after 8) is seen as expired by Entra: Entra's clock runs ahead so
// that any token older than 20 s is past its expiry plus leeway. The next
// exchange is refused with AADSTS700024; the operator must mint a fresh
// token and exchange again, and nothing stays failed after that.
//
// The credential drops a token Entra refused as expired and exchanges again
// at once; the refusal's message is stable, so it causes no status writes.
func TestExpiredServiceAccountTokenIsReplaced(t *testing.T) {
	s := getStack(t)
	ctx := t.Context()
	const ns = "expiry"
	onboard(t, s, ns)
	first := bench.ResourceGroup(ns, ns+"-first", nil)
	create(t, s, first)
	waitAllReady(t, time.Minute, []azurev1alpha1.Resource{first})
	// The token minted at onboarding is now older than 20 s.
	time.Sleep(25 * time.Second)
	api, err := s.APIServerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	minted := api.TokenRequests()
	statusWrites := api.Sum("apiserver_request_total", map[string]string{"resource": "identities", "subresource": "status"})
	since := lastSeq(t, s)
	defer func() {
		if api, err := s.APIServerMetrics(ctx); err == nil {
			t.Logf("%v Identity status writes since the skew (all namespaces)", api.Sum("apiserver_request_total", map[string]string{"resource": "identities", "subresource": "status"})-statusWrites)
		}
	}()
	const skew = 11*time.Minute - 20*time.Second
	if err := s.Emulator.SetFaults(ctx, emulator.Faults{EntraClockSkew: emulator.Duration(skew)}); err != nil {
		t.Fatal(err)
	}
	// Access tokens are stale after 10 s and Identities are checked every
	// 5 s: an exchange comes within seconds and presents the cached token.
	entra := func() (refused, issued int) {
		es, err := s.Emulator.Audit(ctx, emulator.AuditFilter{Since: since, Service: "entra", ClientID: bench.ClientID(ns)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			switch {
			case e.ErrorCode == "AADSTS700024":
				refused++
			case e.Status == 200 && refused > 0:
				issued++
			}
		}
		return refused, issued
	}
	testenv.Eventually(t, 30*time.Second, "an exchange with the old ServiceAccount token", func() (bool, string) {
		refused, _ := entra()
		return refused > 0, ""
	})
	testenv.Eventually(t, time.Minute, "an exchange with a fresh ServiceAccount token after the refusal", func() (bool, string) {
		refused, issued := entra()
		return issued > 0, fmt.Sprintf("%d refused as expired, none issued since", refused)
	})
	second := bench.ResourceGroup(ns, ns+"-second", nil)
	create(t, s, second)
	waitAllReady(t, 90*time.Second, []azurev1alpha1.Resource{first, second})
	testenv.Eventually(t, 30*time.Second, "Identity Ready", func() (bool, string) {
		c := identityReady(t, ns, "default")
		return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprint(c)
	})
	expired, _ := entra()
	if expired > 10 {
		t.Errorf("%d exchanges refused as expired: the refusal is retried in a loop", expired)
	}
	api, err = s.APIServerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d exchanges refused as expired, %v ServiceAccount tokens minted since the skew", expired, api.TokenRequests()-minted)
	if api.TokenRequests() <= minted {
		t.Error("no fresh ServiceAccount token was minted")
	}
}

// A real ServiceAccount token (10 minutes, the API server's minimum) reaches
// its expiry while the namespace keeps working: the operator mints a new one
// before Entra would refuse the old, so no exchange is refused and nothing
// fails. It waits 10.5 minutes, so it runs with FAULTS_FULL=1 only.
func TestServiceAccountTokenRefreshedBeforeExpiry(t *testing.T) {
	if !full() {
		t.Skip("FAULTS_FULL=1: waits 10.5 minutes for a real ServiceAccount token to expire")
	}
	s := getStack(t)
	ctx := t.Context()
	const ns = "refresh"
	onboard(t, s, ns)
	api, err := s.APIServerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	minted := api.TokenRequests()
	since := lastSeq(t, s)
	var objs []azurev1alpha1.Resource
	for i := 0; i < 21; i++ { // one resource group every 30 s, past the token's expiry
		rg := bench.ResourceGroup(ns, fmt.Sprintf("%s-rg%02d", ns, i), nil)
		create(t, s, rg)
		objs = append(objs, rg)
		waitAllReady(t, 30*time.Second, objs)
		if c := identityReady(t, ns, "default"); c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("Identity not Ready after %d resource groups: %+v", i+1, c)
		}
		time.Sleep(30 * time.Second)
	}
	es, err := s.Emulator.Audit(ctx, emulator.AuditFilter{Since: since, Service: "entra", ClientID: bench.ClientID(ns)})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Status != 200 {
			t.Errorf("exchange refused: %s %d %s", e.Time.Format(time.TimeOnly), e.Status, e.ErrorCode)
		}
	}
	if api, err = s.APIServerMetrics(ctx); err != nil {
		t.Fatal(err)
	}
	if api.TokenRequests() <= minted {
		t.Error("no ServiceAccount token was minted after the first one expired")
	}
	t.Logf("%d exchanges, %v ServiceAccount tokens minted in 10.5 minutes", len(es), api.TokenRequests()-minted)
}
