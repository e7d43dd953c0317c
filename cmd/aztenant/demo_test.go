package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/internal/controlplane"
)

// `aztenant demo up` runs the whole story with the real binaries (control
// plane, emulator, operator as processes), leaves them running with
// instructions, refuses to start twice, and `demo down` stops everything.
// It needs bin/operator and bin/azure-emulator: `make test` builds them.
func TestDemoUpAndDown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	t.Cleanup(func() { controlplane.StopDir(dir) })
	var out bytes.Buffer
	if err := demoUp(t.Context(), &out, dir); err != nil {
		t.Fatalf("demo up: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"kube-apiserver v1.37.2",
		"TokenExchanged",                 // both Identities federate
		"team-a-app   True    Succeeded", // each team's resource group is Ready
		"TenantPolicyDenied: resource group \"prod-db\" is not allowed",
		"FederationRejected: Entra ID refused the token of ServiceAccount team-a/azure",
		"resourceGroups/team-a-app 201  by team-a", // written by team-a's own principal
		"resourceGroups/team-b-app 201  by team-b",
		"tags in Azure are team=team-a again", // drift reverted
		"export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out.String())
	}
	if err := demoUp(t.Context(), &out, dir); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second demo up: %v, want 'already running'", err)
	}
	if err := controlplane.StopDir(dir); err != nil {
		t.Fatal(err)
	}
	pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	if len(pids) != 0 {
		t.Errorf("pid files left after stop: %v", pids)
	}
	if _, err := os.Stat(filepath.Join(dir, "operator.log")); err != nil {
		t.Errorf("operator log missing: %v", err)
	}
}
