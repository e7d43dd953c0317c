package policy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

const reservedPrefix = "ServiceAccount team-a/aztenant-provisioner is reserved for the aztenant operator: "

// review wraps obj (and old, for an UPDATE) in an AdmissionReview by user,
// as the API server sends it to Gatekeeper's webhook.
func review(t *testing.T, operation, user string, obj, old *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	subject := obj
	if subject == nil {
		subject = old
	}
	gvk := subject.GroupVersionKind()
	req := map[string]any{
		"uid":       "00000000-0000-4000-8000-000000000000",
		"kind":      map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
		"resource":  map[string]any{"group": gvk.Group, "version": gvk.Version, "resource": strings.ToLower(gvk.Kind) + "s"},
		"name":      subject.GetName(),
		"namespace": subject.GetNamespace(),
		"operation": operation,
		"userInfo":  map[string]any{"username": user},
	}
	if obj != nil {
		req["object"] = obj.Object
	}
	if old != nil {
		req["oldObject"] = old.Object
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req,
	}}
}

func withPodSpec(t *testing.T, apiVersion, kind, name, path, account string) *unstructured.Unstructured {
	t.Helper()
	u := object(t, fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: team-a\n", apiVersion, kind, name))
	fields := append(strings.Split(path, "."), "serviceAccountName")
	if path == "" {
		fields = []string{"serviceAccountName"}
	}
	if err := unstructured.SetNestedField(u.Object, account, fields...); err != nil {
		t.Fatal(err)
	}
	return u
}

func serviceAccount(t *testing.T, name string, annotations map[string]string) *unstructured.Unstructured {
	t.Helper()
	u := object(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: "+name+"\n  namespace: team-a\n")
	if annotations != nil {
		u.SetAnnotations(annotations)
	}
	return u
}

// The reserved-account template on what its samples do not show: every pod
// template kind, pod updates, removed annotations, the operator creating
// the account, the parameters, and objects of other kinds. Both engines
// must give exactly the same messages.
func TestReservedServiceAccountRules(t *testing.T) {
	ctx := context.Background()
	const operator = "system:serviceaccount:aztenant-system:aztenant"
	sample := readLibraryObject(t, "reservedserviceaccount/samples/reserved-provisioner/constraint.yaml")
	withParams := func(name string, params map[string]any) *unstructured.Unstructured {
		c := sample.DeepCopy()
		c.SetName(name)
		if params == nil {
			unstructured.RemoveNestedField(c.Object, "spec", "parameters")
		} else if err := unstructured.SetNestedMap(c.Object, params, "spec", "parameters"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// No match at all: the template itself must leave other kinds alone.
	unmatched := withParams("unmatched", map[string]any{"operatorUsernames": []any{operator}})
	unstructured.RemoveNestedField(unmatched.Object, "spec", "match")
	renamed := withParams("renamed", map[string]any{"serviceAccountName": "deployer", "operatorUsernames": []any{operator}})
	noOperators := withParams("no-operators", nil)

	runsAs := func(kind, name string) string {
		return reservedPrefix + kind + " " + name + " may not run pods as it (their token would act as the namespace's Azure identity); give the workload its own ServiceAccount and workload identity"
	}
	annotations := func(who, keys string) string {
		return reservedPrefix + who + " may not set or change its workload-identity annotations (" + keys + ")"
	}
	const clientID, tenantID = "azure.workload.identity/client-id", "azure.workload.identity/tenant-id"
	bound := map[string]string{clientID: "11111111-2222-3333-4444-555555555555", tenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47"}
	pod := withPodSpec(t, "v1", "Pod", "az", "spec", "aztenant-provisioner")
	deprecatedOnly := object(t, "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: az-\n  namespace: team-a\nspec:\n  serviceAccount: aztenant-provisioner\n")
	group := object(t, "apiVersion: resources.aztenant.io/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: aztenant-provisioner\n  namespace: team-a\n  annotations:\n    azure.workload.identity/client-id: x\nspec:\n  location: westeurope\n  serviceAccountName: aztenant-provisioner\n")
	configMap := object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aztenant-provisioner\n  namespace: team-a\n  annotations:\n    kubernetes.io/service-account.name: aztenant-provisioner\ntype: kubernetes.io/service-account-token\n")

	cases := []struct {
		name       string
		constraint *unstructured.Unstructured
		obj        *unstructured.Unstructured
		want       []string
	}{
		{"PodTemplate", sample, withPodSpec(t, "v1", "PodTemplate", "tpl", "template.spec", "aztenant-provisioner"), []string{runsAs("PodTemplate", "tpl")}},
		{"ReplicationController", sample, withPodSpec(t, "v1", "ReplicationController", "rc", "spec.template.spec", "aztenant-provisioner"), []string{runsAs("ReplicationController", "rc")}},
		{"ReplicaSet", sample, withPodSpec(t, "apps/v1", "ReplicaSet", "rs", "spec.template.spec", "aztenant-provisioner"), []string{runsAs("ReplicaSet", "rs")}},
		{"StatefulSet", sample, withPodSpec(t, "apps/v1", "StatefulSet", "sts", "spec.template.spec", "aztenant-provisioner"), []string{runsAs("StatefulSet", "sts")}},
		{"DaemonSet", sample, withPodSpec(t, "apps/v1", "DaemonSet", "ds", "spec.template.spec", "aztenant-provisioner"), []string{runsAs("DaemonSet", "ds")}},
		{"Job", sample, withPodSpec(t, "batch/v1", "Job", "job", "spec.template.spec", "aztenant-provisioner"), []string{runsAs("Job", "job")}},
		{"Job of another account", sample, withPodSpec(t, "batch/v1", "Job", "job", "spec.template.spec", "web"), nil},
		{"Deployment updated to run as it", sample, review(t, "UPDATE", "dev", withPodSpec(t, "apps/v1", "Deployment", "web", "spec.template.spec", "aztenant-provisioner"),
			withPodSpec(t, "apps/v1", "Deployment", "web", "spec.template.spec", "web")), []string{runsAs("Deployment", "web")}},
		{"Pod by generateName, deprecated field", sample, deprecatedOnly, []string{runsAs("Pod", "az-")}},
		{"Pod created by the operator", sample, review(t, "CREATE", operator, pod, nil), []string{runsAs("Pod", "az")}},
		// Its account cannot change; a Pod admitted before the constraint may still be updated.
		{"Pod updated", sample, review(t, "UPDATE", "dev", pod, pod), nil},
		{"Pod deleted", sample, review(t, "DELETE", "dev", nil, pod), nil},
		{"Account created by the operator", sample, review(t, "CREATE", operator, serviceAccount(t, "aztenant-provisioner", bound), nil), nil},
		{"Account created by a developer", sample, review(t, "CREATE", "dev", serviceAccount(t, "aztenant-provisioner", bound), nil), []string{annotations("dev", clientID+", "+tenantID)}},
		{"Account created bare", sample, review(t, "CREATE", "dev", serviceAccount(t, "aztenant-provisioner", nil), nil), nil},
		{"Annotation removed", sample, review(t, "UPDATE", "dev", serviceAccount(t, "aztenant-provisioner", map[string]string{clientID: bound[clientID]}),
			serviceAccount(t, "aztenant-provisioner", bound)), []string{annotations("dev", tenantID)}},
		{"Annotations named in a fixed order", sample, review(t, "CREATE", "dev", serviceAccount(t, "aztenant-provisioner", map[string]string{
			tenantID: "t", "azure.workload.identity/service-account-token-expiration": "3600", "azure.workload.identity/zz": "1", clientID: "c"}), nil),
			[]string{annotations("dev", clientID+", azure.workload.identity/service-account-token-expiration, "+tenantID+", azure.workload.identity/zz")}},
		{"Other annotations counted", sample, review(t, "CREATE", "dev", serviceAccount(t, "aztenant-provisioner", map[string]string{
			"azure.workload.identity/b": "1", "azure.workload.identity/a": "1", "azure.workload.identity/c": "1", clientID: "c"}), nil),
			[]string{annotations("dev", clientID+", 3 other azure.workload.identity/* annotations")}},
		{"Other annotation changed", sample, review(t, "UPDATE", "dev", serviceAccount(t, "aztenant-provisioner", map[string]string{clientID: bound[clientID], tenantID: bound[tenantID], "team": "a"}),
			serviceAccount(t, "aztenant-provisioner", bound)), nil},
		{"Account deleted", sample, review(t, "DELETE", "dev", nil, serviceAccount(t, "aztenant-provisioner", bound)), nil},
		// A manifest, as `aztenant policy test` reads it: no user, no previous version.
		{"Manifest: no user, no operator", sample, serviceAccount(t, "aztenant-provisioner", bound),
			[]string{annotations("a user not in operatorUsernames", clientID+", "+tenantID)}},
		{"Manifest of the bare account", sample, serviceAccount(t, "aztenant-provisioner", nil), nil},
		{"No user: no operator", sample, review(t, "UPDATE", "", serviceAccount(t, "aztenant-provisioner", nil), serviceAccount(t, "aztenant-provisioner", bound)),
			[]string{annotations("a user not in operatorUsernames", clientID+", "+tenantID)}},
		{"No operatorUsernames", noOperators, review(t, "CREATE", operator, serviceAccount(t, "aztenant-provisioner", bound), nil), []string{annotations(operator, clientID+", "+tenantID)}},
		{"serviceAccountName: the default is free", renamed, pod, nil},
		{"serviceAccountName: the named account", renamed, withPodSpec(t, "apps/v1", "Deployment", "web", "spec.template.spec", "deployer"),
			[]string{strings.Replace(runsAs("Deployment", "web"), "aztenant-provisioner", "deployer", 1)}},
		{"aztenant object, no match", unmatched, group, nil},
		{"ConfigMap, no match", unmatched, configMap, nil},
		{"Pod, no match", unmatched, pod, []string{runsAs("Pod", "az")}},
	}
	for _, e := range singleEngines {
		for _, tc := range cases {
			t.Run(string(e)+"/"+tc.name, func(t *testing.T) {
				vs, err := Evaluate(ctx, []*unstructured.Unstructured{tc.constraint, tc.obj}, nil, WithEngine(e))
				if err != nil {
					t.Fatal(err)
				}
				if got := messages(vs); !equality.Semantic.DeepEqual(got, tc.want) {
					y, _ := yaml.Marshal(tc.obj.Object)
					t.Errorf("violations:\n got  %q\n want %q\nfor\n%s", got, tc.want, y)
				}
			})
		}
	}
}

// An AdmissionReview is named after what its request is about, and one
// without an object to review is refused as gator refuses it.
func TestEvaluateAdmissionReview(t *testing.T) {
	ctx := context.Background()
	u := readLibraryObject(t, "reservedserviceaccount/samples/reserved-provisioner/example_disallowed_tokenrequest.yaml")
	if got := ObjectName(u); got != "TokenRequest team-a/aztenant-provisioner" {
		t.Errorf("ObjectName = %q", got)
	}
	c := readLibraryObject(t, "reservedserviceaccount/samples/reserved-provisioner/constraint.yaml")
	vs, err := Evaluate(ctx, []*unstructured.Unstructured{c, u}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Object != "TokenRequest team-a/aztenant-provisioner" || vs[0].Constraint != "AztenantReservedServiceAccount/reserved-provisioner" {
		t.Errorf("violations %v", vs)
	}
	empty := u.DeepCopy()
	unstructured.RemoveNestedField(empty.Object, "request", "object")
	if _, err := Evaluate(ctx, []*unstructured.Unstructured{c, empty}, nil); err == nil || !strings.Contains(err.Error(), "neither object nor oldObject") {
		t.Errorf("an AdmissionReview with nothing to review: %v", err)
	}
	unknown := u.DeepCopy()
	if err := unstructured.SetNestedField(unknown.Object, "x", "request", "userInfo", "nickname"); err != nil {
		t.Fatal(err)
	}
	if _, err := Evaluate(ctx, []*unstructured.Unstructured{c, unknown}, nil); err == nil {
		t.Error("an AdmissionReview with an unknown field was accepted")
	}
}
