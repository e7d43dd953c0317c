package operator_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// A manager stopped while its cache is still syncing, as the inner manager
// of a sharded replica is when its shards change during its first sync,
// returns within its graceful shutdown timeout. Without StoppableCache,
// controller-runtime's Start keeps waiting for the sync (spinning on the
// cancelled context), here forever: the ConfigMaps' list never answers.
func TestStoppableCacheEndsAManagerStoppedDuringItsSync(t *testing.T) {
	env := testenv.Get(t)
	cfg := rest.CopyConfig(env.Config)
	release := make(chan struct{})
	defer close(release)
	listed := make(chan struct{})
	var once sync.Once
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTrip(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/configmaps") {
				once.Do(func() { close(listed) })
				select { // an API server that never answers a list or watch of them
				case <-release:
				case <-req.Context().Done():
				}
				return nil, req.Context().Err()
			}
			return rt.RoundTrip(req)
		})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		NewCache: operator.StoppableCache(ctx.Done()), GracefulShutdownTimeout: ptr.To(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case <-listed:
	case <-time.After(30 * time.Second):
		t.Fatal("the cache never listed the ConfigMaps")
	}
	stopped := time.Now()
	cancel()
	select {
	case err := <-done:
		t.Logf("stopped during its sync: Start returned %v after %s", err, time.Since(stopped).Round(time.Millisecond))
	case <-time.After(15 * time.Second):
		t.Fatal("Start still runs 15s after the manager was stopped during its cache sync")
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
