package reconcilers

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// What the kind-level tests of normalize_kinds_test.go (package
// reconcilers_test, which may import the kinds) use of the reconciler.

// DesiredForTest is the PUT body a reconcile builds for obj (desired.go),
// without resolved references.
func DesiredForTest(k Kind, obj azurev1alpha1.Resource) (map[string]any, error) {
	return (&Reconciler{Kind: k}).desired(obj, nil)
}

// DifferencesForTest are the paths where plan and observe find actual
// different from desired for kind k (reconcilers/comparison, with the kind's
// rules).
func DifferencesForTest(k Kind, desired, actual map[string]any) []string {
	rules := comparisonRules(k.Facts(), k.Hooks())
	var out []string
	for _, d := range comparison.Differences(desired, actual, rules) {
		out = append(out, d.Path)
	}
	if first := comparison.Drift(desired, actual, rules); (first == "") != (len(out) == 0) {
		out = append(out, "(plan found "+first+")")
	}
	return out
}

// CheckKindForTest is checkKind, which NewRegistry applies to every kind.
func CheckKindForTest(k Kind) error { return checkKind(k) }
