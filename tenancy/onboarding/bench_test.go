package onboarding_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// BenchmarkOnboardTenNamespaces prints how long the operator takes to
// onboard a Tenant of ten namespaces from nothing (onboard-s, once), then the
// cost of a pass over the onboarded Tenant (the hourly resync): wall time per
// pass, ARM calls per pass and ARM writes per pass (which must be 0).
//
//	go test -run XXX -bench OnboardTenNamespaces ./tenancy/onboarding/
func BenchmarkOnboardTenNamespaces(b *testing.B) {
	w := newWorld(b, "bench-ops", []string{"Contributor", "User Access Administrator"}, true)
	var namespaces []string
	for i := range 10 {
		ns := fmt.Sprintf("bench-%d", i)
		namespaces = append(namespaces, ns)
		w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	w.startOperator("bench")
	start := time.Now()
	w.create(onboardingTenant("bench", namespaces, []string{"bench-app", "bench-data"}))
	tn := w.waitOnboarded("bench", metav1.ConditionTrue, onboarding.ReasonOnboarded)
	onboardTime := time.Since(start)
	if c := meta.FindStatusCondition(tn.Status.Conditions, onboarding.ConditionOnboarded); c.Message != "10 namespace(s) onboarded" {
		b.Fatalf("Onboarded: %s", c.Message)
	}

	// The same reconciler the operator runs, called directly so passes are counted.
	cloud := identity.Cloud{AuthorityHost: w.emu.URL() + "/", ARMEndpoint: w.emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: w.emu.CAPEM()}
	opts, err := cloud.ClientOptions()
	if err != nil {
		b.Fatal(err)
	}
	r := &onboarding.Reconciler{
		Client: w.c, APIReader: w.c, Directory: tenancy.NewDirectory(w.c, tenancy.ServeTenants()),
		Credentials: identity.NewCredentials(identity.NewTokenCache(identity.APITokenRequester{Client: w.c}, time.Hour), opts),
		ARMOptions:  &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true},
		Platform:    types.NamespacedName{Namespace: w.ops, Name: "platform"},
		Issuer:      onboarding.StaticIssuer(w.env.IssuerURL),
	}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: "bench"}}
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, req); err != nil { // token exchange outside the timing
		b.Fatal(err)
	}
	mark := w.lastSeq()
	passes := 0
	for b.Loop() {
		if _, err := r.Reconcile(ctx, req); err != nil {
			b.Fatal(err)
		}
		passes++
	}
	calls, writes := 0, 0
	for _, e := range w.emu.Audit(emulator.AuditFilter{Since: mark, Service: "arm"}) {
		calls++
		if e.Method != http.MethodGet {
			writes++
		}
	}
	b.ReportMetric(onboardTime.Seconds(), "onboard-s")
	b.ReportMetric(float64(calls)/float64(passes), "arm-calls/pass")
	b.ReportMetric(float64(writes)/float64(passes), "arm-writes/pass")
}
