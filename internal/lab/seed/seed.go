// Package seed keeps what a fresh control plane is given before anything runs on it,
// the project's CRDs and the reservation of the provisioner accounts, as a copy of
// an etcd that already holds them.
//
// Installing the 300-odd CRDs costs a fresh API server about 25 s of CPU (15 s of
// wall time on 2 cores); an API server started over an etcd that already holds them
// spends about 6. So the first control plane started with a given Content (the CRDs,
// the reservation, the etcd and kube-apiserver binaries) builds it once, stops and
// keeps its etcd data under the temporary directory; every later one starts from a
// copy (controlplane.Options.EtcdSeed) and waits until its API server serves what
// the copy holds (Content.Served). A change of any input is a new key, so a stale
// seed is never used; processes starting at the same moment build it once (a file
// lock). The test harness (internal/testing/testenv), the lab's stacks
// (internal/lab/bench: the bench and the fault suite) and the demo start from the
// same seed; the CRDs in it are applied as the operator applies them, so an operator
// started on a copy finds them current and writes none.
package seed

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

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/identity/reservation"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// Namespace holds the reservation policies' parameters, as the chart's release
// namespace does.
const Namespace = "aztenant-system"

// CRDWait bounds the wait for installed CRDs to be served. envtest's default (10 s)
// is too short for 300 CRDs on a loaded 2-core machine; the wait ends as soon as
// they are established.
const CRDWait = 2 * time.Minute

// CRDPoll is how often a start from a seed asks whether its CRDs are served.
const CRDPoll = 100 * time.Millisecond

// Content is what a control plane holds before anything runs on it.
type Content struct {
	// CRDs are installed and served.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Reservation installs identity/reservation's admission policies (only the
	// operator's user may act as a namespace's provisioner account) with their
	// parameters in Namespace, as the chart does, and waits until they are enforced.
	Reservation bool
}

// Empty reports whether c holds nothing: a control plane needs no seed for it.
func (c Content) Empty() bool { return len(c.CRDs) == 0 && !c.Reservation }

// root holds the seeds, one directory per key.
func root() string { return filepath.Join(os.TempDir(), "aztenant-seeds") }

// key names c as installed by the etcd and kube-apiserver binaries in bin.
func (c Content) key(bin string) (string, error) {
	h := sha256.New()
	// How populate installs them is part of the content: the CRDs as the operator
	// applies them (crdinstall, annotated with their digests).
	fmt.Fprintf(h, "crds=%d applied-by=crdinstall reservation=%t\n", len(c.CRDs), c.Reservation)
	if err := json.NewEncoder(h).Encode(c.CRDs); err != nil {
		return "", err
	}
	if c.Reservation {
		objs, err := reservation.Objects(Namespace, []string{controlplane.OperatorUser})
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

// Dir returns the etcd data directory of a control plane (of the binaries in bin)
// that holds c, building it if no process has yet.
func Dir(ctx context.Context, bin string, c Content) (string, error) {
	key, err := c.key(bin)
	if err != nil {
		return "", err
	}
	root := root()
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
		return filepath.Join(dir, "etcd"), nil // built by another process meanwhile
	}
	prune(root, key)
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
	if err := c.populate(ctx, cp.Config); err != nil {
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

// prune removes the seeds of other keys (earlier CRDs or binaries) unused for a day
// and not being built: each holds an etcd of tens of MiB.
func prune(root, keep string) {
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

// populate creates c in a fresh control plane: the CRDs, served, and the
// reservation, enforced. The CRDs are applied as the operator applies them at its
// start (crdinstall, with the digest it records), so an operator started on a copy
// finds them current and writes none.
func (c Content) populate(ctx context.Context, cfg *rest.Config) error {
	// The installer's log line says what the seed's build did, which nobody reads.
	ctx = ctrl.LoggerInto(ctx, logr.Discard())
	cl, err := newClient(cfg)
	if err != nil {
		return err
	}
	if len(c.CRDs) > 0 {
		if _, err := (crdinstall.Installer{Client: cl}).Install(ctx, c.CRDs); err != nil {
			return fmt.Errorf("install CRDs: %w", err)
		}
		if err := envtest.WaitForCRDs(cfg, c.CRDs, envtest.CRDInstallOptions{MaxTime: CRDWait, PollInterval: CRDPoll}); err != nil {
			return fmt.Errorf("installed CRDs not served: %w", err)
		}
	}
	if !c.Reservation {
		return nil
	}
	if err := reservation.Install(ctx, cl, Namespace, []string{controlplane.OperatorUser}); err != nil {
		return err
	}
	return reservation.WaitEnforced(ctx, cl, "default")
}

// Served waits until an API server started from c's seed serves what it holds:
// the CRDs' resources and the enforced reservation.
func (c Content) Served(ctx context.Context, cfg *rest.Config) error {
	if len(c.CRDs) > 0 {
		if err := envtest.WaitForCRDs(cfg, c.CRDs, envtest.CRDInstallOptions{MaxTime: CRDWait, PollInterval: CRDPoll}); err != nil {
			return fmt.Errorf("CRDs of the seed not served: %w", err)
		}
	}
	if !c.Reservation {
		return nil
	}
	cl, err := newClient(cfg)
	if err != nil {
		return err
	}
	return reservation.WaitEnforced(ctx, cl, "default")
}

// newClient is a client of Kubernetes' types and CRDs.
func newClient(cfg *rest.Config) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}
