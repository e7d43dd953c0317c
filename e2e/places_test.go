package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/aztenant/aztenant/"

// deps lists the packages of this module that pkg depends on (itself
// included), relative to the module's path.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(p, module); ok {
			own = append(own, rel)
		}
	}
	return own
}

// TestPlaces holds the package map of ARCHITECTURE.md to what the code
// imports (issue 28 item 4): nothing shipped (the operator, the CLI, the
// emulator) depends on the lab (internal/lab: the demo's and the benchmark's
// stack) nor on the test harness (internal/testing), and the emulator, a
// product of its own, depends on nothing of the operator: only on its own
// packages, the certificate helper and two tables of Azure's facts the API
// holds (the built-in roles, the locations).
func TestPlaces(t *testing.T) {
	for _, bin := range []string{"./cmd/operator", "./cmd/aztenant", "./cmd/azure-emulator"} {
		for _, p := range deps(t, bin) {
			if strings.HasPrefix(p, "internal/lab/") || strings.HasPrefix(p, "internal/testing/") {
				t.Errorf("%s depends on %s, which is not shipped", bin, p)
			}
		}
	}
	allowed := map[string]bool{"cmd/azure-emulator": true, "emulator": true, "internal/pki": true,
		"api/authorization/roles": true, "api/azure/v1alpha1": true}
	for _, p := range deps(t, "./cmd/azure-emulator") {
		if !allowed[p] && !strings.HasPrefix(p, "emulator/") {
			t.Errorf("the emulator depends on %s: it is a product of its own", p)
		}
	}
}
