package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/identity/reservation"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// Installing the 300-odd CRDs costs a fresh API server about 25 s of CPU (15 s of
// wall time on 2 cores), once per test package; an API server started over an etcd
// that already holds them spends about 6. So the first package to start a control
// plane with a given content (the CRDs, the reservation, the binaries) builds it
// once, stops it and keeps its etcd data under the temporary directory as a seed;
// every package then starts from a copy of that seed and waits until the API server
// serves what it holds. A change of any input is a new key, so a stale seed is never
// used; packages starting at the same moment build it once (a file lock).

// seedRoot holds the seeds, one directory per key.
func seedRoot() string { return filepath.Join(os.TempDir(), "aztenant-testenv-seeds") }

// seedKey names the content a control plane starts with under s: the CRDs, the
// reservation's objects and the etcd and kube-apiserver binaries.
func seedKey(s settings, crds []*apiextensionsv1.CustomResourceDefinition, bin string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "crds=%t reservation=%t\n", !s.skipCRDs, !s.skipReservation)
	if !s.skipCRDs {
		if err := json.NewEncoder(h).Encode(crds); err != nil {
			return "", err
		}
	}
	if !s.skipReservation {
		objs, err := reservation.Objects(OperatorNamespace, []string{controlplane.OperatorUser})
		if err != nil {
			return "", err
		}
		if err := json.NewEncoder(h).Encode(objs); err != nil {
			return "", err
		}
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		fi, err := os.Stat(filepath.Join(bin, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %d\n", name, fi.Size(), fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// seed returns the etcd data directory of a control plane that holds what s asks
// for, building it if no package has yet.
func seed(ctx context.Context, s settings, crds []*apiextensionsv1.CustomResourceDefinition) (string, error) {
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		return "", err
	}
	key, err := seedKey(s, crds, bin)
	if err != nil {
		return "", err
	}
	root := seedRoot()
	dir := filepath.Join(root, key)
	ready := filepath.Join(dir, "ready")
	if _, err := os.Stat(ready); err == nil {
		now := time.Now()
		_ = os.Chtimes(ready, now, now) // in use: not pruned
		return filepath.Join(dir, "etcd"), nil
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too
	if _, err := os.Stat(ready); err == nil {
		return filepath.Join(dir, "etcd"), nil // built by another package meanwhile
	}
	pruneSeeds(root, key)
	if err := os.RemoveAll(dir); err != nil { // a build that did not finish
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	build, err := os.MkdirTemp(root, key+".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(build)
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: bin, Dir: build})
	if err != nil {
		return "", err
	}
	if err := populate(ctx, cp, s, crds); err != nil {
		cp.Stop()
		return "", err
	}
	cp.Stop() // etcd stops cleanly: its data directory is whole
	if err := os.Rename(filepath.Join(build, "etcd"), filepath.Join(dir, "etcd")); err != nil {
		return "", err
	}
	if err := os.WriteFile(ready, nil, 0o600); err != nil {
		return "", err
	}
	return filepath.Join(dir, "etcd"), nil
}

// pruneSeeds removes the seeds of other keys (earlier CRDs or binaries) unused for
// a day and not being built: each holds an etcd of tens of MiB.
func pruneSeeds(root, keep string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep || strings.Contains(e.Name(), ".build-") {
			continue
		}
		fi, err := os.Stat(filepath.Join(root, e.Name(), "ready"))
		if err == nil && time.Since(fi.ModTime()) < 24*time.Hour {
			continue
		}
		lock, err := os.OpenFile(filepath.Join(root, e.Name()+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(filepath.Join(root, e.Name()))
			os.Remove(lock.Name())
		}
		lock.Close()
	}
}

// populate creates what s asks for in a fresh control plane: the CRDs, served,
// and the reservation, enforced.
func populate(ctx context.Context, cp *controlplane.ControlPlane, s settings, crds []*apiextensionsv1.CustomResourceDefinition) error {
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	if !s.skipCRDs {
		if _, err := envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{CRDs: crds, Scheme: scheme, MaxTime: CRDWait}); err != nil {
			return fmt.Errorf("install CRDs: %w", err)
		}
	}
	if !s.skipReservation {
		c, err := client.New(cp.Config, client.Options{Scheme: scheme})
		if err != nil {
			return err
		}
		// As the chart does: only the operator (OperatorConfig) may act as a
		// namespace's provisioner account.
		if err := reservation.Install(ctx, c, OperatorNamespace, []string{controlplane.OperatorUser}); err != nil {
			return err
		}
		return reservation.WaitEnforced(ctx, c, "default")
	}
	return nil
}

// served waits until an API server started from a seed serves what the seed
// holds: the CRDs' resources and the enforced reservation.
func served(ctx context.Context, cp *controlplane.ControlPlane, c client.Client, s settings, crds []*apiextensionsv1.CustomResourceDefinition) error {
	if !s.skipCRDs {
		if err := envtest.WaitForCRDs(cp.Config, crds, envtest.CRDInstallOptions{MaxTime: CRDWait, PollInterval: CRDPoll}); err != nil {
			return fmt.Errorf("CRDs of the seed not served: %w", err)
		}
	}
	if !s.skipReservation {
		return reservation.WaitEnforced(ctx, c, "default")
	}
	return nil
}
