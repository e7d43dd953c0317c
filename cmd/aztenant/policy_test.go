package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

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
		// Checked against the platform's constraints, which the examples are written for.
		if err := policyTest(t.Context(), &out, []string{"../../examples/app-stack", "../../examples/aks", "../../examples/policy/constraints.yaml"}, engine); err != nil {
			t.Errorf("engine %v: the examples violate the library: %v\n%s", engine, err, out.String())
		}
	}
	if _, err := parseEngine("opa"); err == nil {
		t.Error("an unknown engine was accepted")
	}
}

// `aztenant policy vap` prints a policy and binding per sample constraint;
// given a template it cannot convert, it still prints the rest, names what
// it left out with why, and exits non-zero unless told otherwise.
func TestPolicyVAP(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := policyVAP(&out, &errOut, nil, false); err != nil {
		t.Fatalf("the library did not convert: %v\n%s", err, errOut.String())
	}
	samples, err := policy.SampleConstraints()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\nkind: ValidatingAdmissionPolicy\n"); n != len(samples) {
		t.Errorf("%d policies for %d sample constraints", n, len(samples))
	}

	dir := t.TempDir()
	input := `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: regoonly
spec:
  crd:
    spec:
      names:
        kind: RegoOnly
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package regoonly
        violation[{"msg": "no"}] { true }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: RegoOnly
metadata:
  name: legacy
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: AztenantAllowedLocations
metadata:
  name: eu-only
spec:
  parameters:
    locations: [westeurope]
`
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(input), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if err := policyVAP(&out, &errOut, []string{dir}, false); !errors.Is(err, errUnsupported) {
		t.Errorf("a Rego-only template passed: %v", err)
	}
	if !strings.Contains(errOut.String(), "ConstraintTemplate regoonly: no K8sNativeValidation (CEL) code") || !strings.Contains(errOut.String(), "RegoOnly/legacy") {
		t.Errorf("stderr does not name the template and its constraint:\n%s", errOut.String())
	}
	if !strings.Contains(out.String(), "name: aztenant-aztenantallowedlocations-eu-only\n") || strings.Count(out.String(), "\nkind: ValidatingAdmissionPolicy\n") != 1 {
		t.Errorf("want exactly the given convertible constraint's policy:\n%s", out.String())
	}
	if err := policyVAP(&out, &errOut, []string{dir}, true); err != nil {
		t.Errorf("--allow-unsupported: %v", err)
	}
}

// examples/policy/constraints.yaml reserves the provisioner account too:
// offline, a manifest running a pod as it fails; the operator's guard
// (which the demo loads it into) accepts the file and, reviewing only
// aztenant kinds, is not affected; and it converts to
// ValidatingAdmissionPolicies, the TokenRequest rule included.
func TestPolicyExampleConstraints(t *testing.T) {
	const constraints = "../../examples/policy/constraints.yaml"
	dir := t.TempDir()
	pod := `apiVersion: batch/v1
kind: Job
metadata:
  name: az
  namespace: team-a
spec:
  template:
    spec:
      serviceAccountName: aztenant-provisioner
      restartPolicy: Never
      containers:
        - name: az
          image: mcr.microsoft.com/azure-cli
`
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := policyTest(t.Context(), &out, []string{dir, constraints}, policy.EngineDefault)
	if !errors.Is(err, errViolations) || !strings.Contains(out.String(), "[AztenantReservedServiceAccount/reserved-provisioner] ServiceAccount team-a/aztenant-provisioner is reserved for the aztenant operator: Job az may not run pods as it") {
		t.Errorf("a Job running as the provisioner account: %v\n%s", err, out.String())
	}

	objs, err := policy.ReadManifests(constraints)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.NewGuard(t.Context(), nil, runtime.NewScheme(), objs, policy.EngineDefault); err != nil {
		t.Errorf("the operator would refuse %s: %v", constraints, err)
	}

	var vapOut, errOut bytes.Buffer
	if err := policyVAP(&vapOut, &errOut, []string{constraints}, false); err != nil {
		t.Fatalf("%s does not convert: %v\n%s", constraints, err, errOut.String())
	}
	if !strings.Contains(vapOut.String(), "name: aztenant-aztenantreservedserviceaccount-reserved-provisioner\n") || !strings.Contains(vapOut.String(), "- serviceaccounts/token\n") {
		t.Errorf("no policy for the reserved account with the serviceaccounts/token rule:\n%s", vapOut.String())
	}
}
