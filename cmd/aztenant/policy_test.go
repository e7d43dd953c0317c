package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/policy"
)

// `aztenant policy test` fails a tenant's CI on a violation, with the
// template's message, and passes the project's own examples.
func TestPolicyTest(t *testing.T) {
	var out bytes.Buffer
	err := policyTest(t.Context(), &out, []string{"testdata/policy"}, policy.EngineDefault)
	if !errors.Is(err, errViolations) {
		t.Fatalf("a RoleAssignment of Owner at subscription scope passed: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "grants privileged role Owner") {
		t.Errorf("output lacks the template's message:\n%s", out.String())
	}

	for _, engine := range []policy.Engine{policy.EngineCEL, policy.EngineRego} {
		out.Reset()
		if err := policyTest(t.Context(), &out, []string{"../../examples/app-stack", "../../examples/aks"}, engine); err != nil {
			t.Errorf("engine %v: the examples violate the library: %v\n%s", engine, err, out.String())
		}
	}
	if _, err := parseEngine("opa"); err == nil {
		t.Error("an unknown engine was accepted")
	}
}
