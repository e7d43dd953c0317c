package controlplane

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
)

// RestartAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after grace)
// and starts it again with the same flags, port, certificates and etcd, as a
// control-plane upgrade or crash does to the operators watching it. It
// returns when the API server is ready again; etcd keeps running throughout.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context, grace time.Duration) error {
	if cp == nil || cp.apiserver.Pid() == 0 {
		return errors.New("controlplane: no API server was started")
	}
	cp.apiserver.Stop(grace)
	if err := cp.apiserver.Start(); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	return WaitFor(wctx, "kube-apiserver after restart", func(ctx context.Context) error {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("%w: %s", err, body)
		}
		return nil
	}, cp.etcd, cp.apiserver)
}
