package asoconvert_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/asoconvert"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
)

// The control plane has the converted application's kinds.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.WithKinds(testenv.KindsAnd("network.aztenant.io")))
}

func convert(t *testing.T, files ...string) asoconvert.Result {
	t.Helper()
	docs, err := policy.ReadManifests(files...)
	if err != nil {
		t.Fatal(err)
	}
	return asoconvert.Convert(docs, testenv.Get(t).Scheme)
}

func find(t *testing.T, res asoconvert.Result, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range res.Objects {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s in the output", kind, name)
	return nil
}

func str(t *testing.T, o *unstructured.Unstructured, path ...string) string {
	t.Helper()
	v, _, err := unstructured.NestedString(o.Object, path...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// An application written for ASO converts whole: every object in aztenant's
// group at v1alpha1, references and owners with aztenant's groups, a blob
// container re-owned by its account, ASO's skip as observe; and every converted
// object is accepted by the API server with aztenant's CRDs (server-side dry run).
func TestConvertASOApplication(t *testing.T) {
	res := convert(t, "testdata/aso-app.yaml")
	if res.Lost() {
		t.Errorf("an ASO application lost something: %v", res.Findings)
	}
	if len(res.Objects) != 14 {
		t.Errorf("%d objects, want all 14", len(res.Objects))
	}
	for _, o := range res.Objects {
		if g := o.GroupVersionKind(); g.Group != "" && (!strings.HasSuffix(g.Group, ".aztenant.io") || g.Version != "v1alpha1") {
			t.Errorf("%s %s has apiVersion %s", o.GetKind(), o.GetName(), o.GetAPIVersion())
		}
	}
	if g := str(t, find(t, res, "VirtualNetworksSubnet", "app-vnet-default"), "spec", "networkSecurityGroup", "reference", "group"); g != "network.aztenant.io" {
		t.Errorf("subnet's NSG reference group %q", g)
	}
	if g := str(t, find(t, res, "RoleAssignment", "app-blob-reader"), "spec", "owner", "group"); g != "storage.aztenant.io" {
		t.Errorf("role assignment's owner group %q", g)
	}
	if o := str(t, find(t, res, "StorageAccountsBlobServicesContainer", "uploads"), "spec", "owner", "name"); o != "asoappstorage" {
		t.Errorf("container owner %q, want the account", o)
	}
	if p := find(t, res, "StorageAccount", "asoappstorage").GetAnnotations()["aztenant.io/reconcile-policy"]; p != "observe" {
		t.Errorf("ASO's skip became %q, want observe", p)
	}
	if k := str(t, find(t, res, "FlexibleServer", "app-db"), "spec", "administratorLoginPassword", "key"); k != "password" {
		t.Errorf("the password's Secret reference became %q", k)
	}
	if find(t, res, "Secret", "app-db-admin").GetAPIVersion() != "v1" {
		t.Error("the Secret did not pass unchanged")
	}

	env := testenv.Get(t)
	ctx := t.Context()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, o := range res.Objects {
		if err := env.Client.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
			t.Errorf("the API server refuses converted %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// A live ASO object (annotations, finalizer, status) and a kind aztenant lacks:
// the credential and the kind are reported as not converted, ASO's state is
// dropped with a note, and resource-id (the resource exists) becomes adopt.
func TestConvertReportsWhatHasNoEquivalent(t *testing.T) {
	res := convert(t, "testdata/aso-live.yaml")
	var lost []string
	for _, f := range res.Findings {
		if f.Lost {
			lost = append(lost, f.Object+" "+f.Path)
		}
	}
	want := []string{
		"ResourceGroup/team-a/legacy-rg metadata.annotations[serviceoperator.azure.com/credential-from]",
		"SecurityGroup/team-a/analytics ",
	}
	slices.Sort(lost)
	if !slices.Equal(lost, want) {
		t.Errorf("lost %q, want %q", lost, want)
	}
	if len(res.Objects) != 1 {
		t.Fatalf("%d objects, want the resource group only", len(res.Objects))
	}
	rg := res.Objects[0]
	if rg.GetAnnotations()["aztenant.io/adopt"] != "true" {
		t.Errorf("annotations %v: want aztenant.io/adopt for a resource that exists", rg.GetAnnotations())
	}
	for k := range rg.GetAnnotations() {
		if strings.HasPrefix(k, "serviceoperator.azure.com/") {
			t.Errorf("ASO annotation %s kept", k)
		}
	}
	if _, has := rg.Object["status"]; has || len(rg.GetFinalizers()) > 0 || rg.GetResourceVersion() != "" || rg.GetUID() != "" {
		t.Errorf("ASO's state kept: %v", rg.Object)
	}
	if tags, _, _ := unstructured.NestedStringMap(rg.Object, "spec", "tags"); tags["owner"] != "team-a" {
		t.Errorf("tags %v", tags)
	}
}

// A field aztenant's kind does not have is reported, with its path, and left out.
func TestConvertReportsUnknownFields(t *testing.T) {
	docs, err := policy.DecodeManifests("inline", []byte(`
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: rg, namespace: team-a}
spec:
  location: westeurope
  managedBy: /subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c/resourceGroups/x
`))
	if err != nil {
		t.Fatal(err)
	}
	res := asoconvert.Convert(docs, testenv.Get(t).Scheme)
	if len(res.Findings) != 1 || !res.Findings[0].Lost || res.Findings[0].Path != "spec.managedBy" {
		t.Fatalf("findings %v, want spec.managedBy not converted", res.Findings)
	}
	if _, has, _ := unstructured.NestedFieldNoCopy(res.Objects[0].Object, "spec", "managedBy"); has {
		t.Error("the field is in the output")
	}
}
