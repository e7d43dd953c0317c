package charttest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aztenant/aztenant/policy"
)

// policy.constraints reach the operator as a mounted ConfigMap and
// --policy-constraints, in a form the operator's policy guard accepts.
func TestPolicyConstraints(t *testing.T) {
	d := render(t, nil).deployment(t)
	wantNoFlag(t, args(t, d), "policy-constraints")

	m := render(t, map[string]any{"policy": map[string]any{"constraints": []any{
		map[string]any{"apiVersion": "constraints.gatekeeper.sh/v1beta1", "kind": "AztenantPublicNetworkAccess",
			"metadata": map[string]any{"name": "deny-public-network"}},
		map[string]any{"apiVersion": "constraints.gatekeeper.sh/v1beta1", "kind": "AztenantAllowedLocations",
			"metadata": map[string]any{"name": "eu"}, "spec": map[string]any{"parameters": map[string]any{"locations": []any{"westeurope"}}}},
	}}})
	d = m.deployment(t)
	wantFlag(t, args(t, d), "policy-constraints", "/etc/aztenant/policy")
	mounted := false
	for _, vm := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		mounted = mounted || (vm.MountPath == "/etc/aztenant/policy" && vm.ReadOnly)
	}
	if !mounted {
		t.Error("the constraints are not mounted read-only at /etc/aztenant/policy")
	}
	var cm corev1.ConfigMap
	m.named(fullname+"-policy").one(t, "ConfigMap", &cm)
	objs, err := policy.DecodeManifests("constraints.yaml", []byte(cm.Data["constraints.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("%d constraints in the ConfigMap, want 2", len(objs))
	}
	if _, err := policy.NewGuard(t.Context(), nil, runtime.NewScheme(), objs, policy.EngineDefault); err != nil {
		t.Errorf("the operator would refuse the rendered constraints: %v", err)
	}

	if _, err := templateErr(t, map[string]any{"policy": map[string]any{"constraints": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}}}); err == nil {
		t.Error("a non-constraint was accepted in policy.constraints")
	}
}
