package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/internal/controlplane"
)

// `aztenant demo up` leaves a working control plane behind with instructions,
// refuses to start twice, and `demo down` stops it.
func TestDemoUpAndDown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	t.Cleanup(func() { controlplane.StopDir(dir) })
	var out bytes.Buffer
	if err := demoUp(t.Context(), &out, dir); err != nil {
		t.Fatalf("demo up: %v\n%s", err, out.String())
	}
	for _, want := range []string{"v1.37.2 ready", "sub  system:serviceaccount:team-a:azure", "export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"), "make demo-down"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	if err := demoUp(t.Context(), &out, dir); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second demo up: %v, want 'already running'", err)
	}
	if err := controlplane.StopDir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); !os.IsNotExist(err) {
		t.Errorf("pid file left after stop: %v", err)
	}
}
