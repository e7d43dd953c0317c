package gatekeeper

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/policy/vap"
)

// The ValidatingAdmissionPolicies made from the library's CEL rules and
// sample constraints are enforced by the API server alone: on a control
// plane where Gatekeeper never ran (none of its CRDs exist), kubectl apply
// of a forbidden object fails with the template's message and an allowed
// one is created.
func TestValidatingAdmissionPolicyWithoutGatekeeper(t *testing.T) {
	t.Parallel()
	// Not the package's: Gatekeeper's test configures that one. Without the
	// reservation's policies, which would deny the reserved account's
	// examples before the generated ones. With every kind: the library's examples are.
	env := testenv.New(t, testenv.WithoutReservation(), testenv.WithKinds(testenv.EveryKind))
	err := env.Client.Get(t.Context(), client.ObjectKey{Name: "constrainttemplates.templates.gatekeeper.sh"}, &apiextensionsv1.CustomResourceDefinition{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("Gatekeeper's CRDs should not exist here (get: %v)", err)
	}
	createNamespace(t, env, "team-a")
	createNamespace(t, env, "team-b")
	prepareLibraryExamples(t, env)

	tmpls, err := policy.Templates()
	if err != nil {
		t.Fatal(err)
	}
	constraints, err := policy.SampleConstraints()
	if err != nil {
		t.Fatal(err)
	}
	res, err := vap.Generate(tmpls, constraints)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unsupported) > 0 || len(res.Pairs) != len(constraints) {
		t.Fatalf("%d of %d sample constraints converted; not converted: %v", len(res.Pairs), len(constraints), res.Unsupported)
	}
	file := filepath.Join(t.TempDir(), "vap.yaml")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteYAML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	applied := time.Now()
	if _, stderr, err := kubectl(t, env, "", "apply", "-f", file); err != nil {
		t.Fatalf("kubectl apply of the generated policies: %v\n%s", err, stderr)
	}
	first := waitEnforced(t, env)
	t.Logf("%d policies applied -> first denial: %v -> all enforced: %v", len(res.Pairs),
		first.Round(10*time.Millisecond), time.Since(applied).Round(10*time.Millisecond))

	checkAdmission(t, env, "ValidatingAdmissionPolicy 'aztenant-aztenant", false)
	checkLibraryExamples(t, env, false)
}
