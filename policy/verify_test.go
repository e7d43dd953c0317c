package policy

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator/verify"
)

// engines are the two ways gator runs a suite: Rego only, and with the
// K8sNativeValidation (CEL) driver, which the constraint framework prefers
// over Rego for templates that have both.
var engines = []struct {
	name string
	opts []gator.Opt
}{
	{name: "rego"},
	{name: "cel", opts: []gator.Opt{gator.WithK8sCEL()}},
}

// TestSuites runs every policy/library/*/suite.yaml through gator verify,
// once per engine, and fails with the suite's own messages.
func TestSuites(t *testing.T) {
	suitePaths, err := filepath.Glob("library/*/suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(suitePaths) == 0 {
		t.Fatal("no suites under library/")
	}
	sort.Strings(suitePaths)
	fsys := os.DirFS(".")
	all, err := verify.NewFilter("")
	if err != nil {
		t.Fatal(err)
	}

	for _, e := range engines {
		runner, err := verify.NewRunner(fsys, func(opts ...gator.Opt) (gator.Client, error) {
			return gator.NewOPAClient(false, append(append([]gator.Opt{}, e.opts...), opts...)...)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range suitePaths {
			suites, err := verify.ReadSuites(fsys, p, p, false)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, s := range suites {
				t.Run(e.name+"/"+strings.TrimSuffix(strings.TrimPrefix(p, "library/"), "/suite.yaml"), func(t *testing.T) {
					checkSuiteResult(t, runner.Run(context.Background(), all, s))
				})
			}
		}
	}
}

func checkSuiteResult(t *testing.T, res verify.SuiteResult) {
	t.Helper()
	if res.Skipped {
		t.Fatalf("suite %s skipped", res.Path)
	}
	if res.Error != nil {
		t.Fatalf("suite %s: %v", res.Path, res.Error)
	}
	cases := 0
	for _, tr := range res.TestResults {
		if tr.Skipped {
			t.Errorf("test %s skipped", tr.Name)
		}
		if tr.Error != nil {
			t.Errorf("test %s: %v", tr.Name, tr.Error)
		}
		for _, cr := range tr.CaseResults {
			cases++
			if cr.Skipped {
				t.Errorf("%s/%s skipped", tr.Name, cr.Name)
			}
			if cr.Error != nil {
				t.Errorf("%s/%s: %v", tr.Name, cr.Name, cr.Error)
			}
		}
	}
	if cases == 0 {
		t.Errorf("suite %s ran no cases", res.Path)
	}
}
