package controlplane_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// After RestartAPIServer the API server answers on the same address with the
// same data (etcd kept running) and the same service-account issuer keys, so
// clients and federated tokens minted before keep working.
func TestRestartAPIServerKeepsAddressDataAndKeys(t *testing.T) {
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	cs := kubernetes.NewForConfigOrDie(cp.Config)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	jwks, err := cp.JWKS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cp.RestartAPIServer(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("API server back after %s", time.Since(start).Round(time.Millisecond))
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "before", metav1.GetOptions{}); err != nil {
		t.Errorf("namespace created before the restart: %v", err)
	}
	after, err := cp.JWKS(ctx)
	if err != nil {
		t.Fatalf("issuer keys after the restart: %v", err)
	}
	if string(after) != string(jwks) {
		t.Error("the issuer's keys changed across the restart")
	}
}
