package charttest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.WithoutCRDs(), testenv.WithoutReservation()) }

const (
	// kubeVersion is what the template tests tell `helm template` the
	// cluster runs: the version testenv runs (offline Helm assumes v1.20.0;
	// TestDocumentedTemplate renders with that).
	kubeVersion = "1.37.2"
	release     = "az"
	namespace   = "aztenant-system"
	fullname    = "az-aztenant"
)

// repoRoot is the repository root: this package lives in charts/charttest.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found: %v", err)
	}
	return root
}

func chartDir(t testing.TB) string { return filepath.Join(repoRoot(t), "charts", "aztenant") }

// helm runs bin/helm with its state in a temporary directory and returns
// stdout and stderr; err is non-nil when helm exits non-zero.
func helm(t testing.TB, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return helmIn(t, "", args...)
}

// helmIn is helm run in dir ("": this package's).
func helmIn(t testing.TB, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatalf("bin dir: %v (run `make tools` or set AZTENANT_BIN_DIR)", err)
	}
	home := t.TempDir()
	cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "helm"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"KUBECONFIG="+filepath.Join(home, "no-kubeconfig"),
	)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// valuesFile writes values as a YAML file and returns the --values arguments.
func valuesFile(t testing.TB, values map[string]any) []string {
	t.Helper()
	if values == nil {
		return nil
	}
	data, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir(): its path holds the test's name, and helm splits
	// --values at commas.
	f, err := os.CreateTemp("", "aztenant-values-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return []string{"--values", f.Name()}
}

// templateErr renders the chart with values and returns helm's error output.
func templateErr(t testing.TB, values map[string]any) (string, error) {
	t.Helper()
	args := append([]string{"template", release, chartDir(t), "--namespace", namespace, "--kube-version", kubeVersion}, valuesFile(t, values)...)
	out, errOut, err := helm(t, args...)
	if err != nil {
		return errOut, err
	}
	return out, nil
}

// render renders the chart with values, failing the test on error.
func render(t testing.TB, values map[string]any) manifest {
	t.Helper()
	out, err := templateErr(t, values)
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	return parseManifest(t, out)
}

// manifest is a rendered chart, one object per document.
type manifest []*unstructured.Unstructured

func parseManifest(t testing.TB, s string) manifest {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(s)))
	var m manifest
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, doc)
		}
		if len(obj) == 0 {
			continue
		}
		m = append(m, &unstructured.Unstructured{Object: obj})
	}
}

func (m manifest) ofKind(kind string) manifest {
	var out manifest
	for _, o := range m {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the only object of kind, converted into out.
// named is the objects of m with that name.
func (m manifest) named(name string) manifest {
	var out manifest
	for _, o := range m {
		if o.GetName() == name {
			out = append(out, o)
		}
	}
	return out
}

func (m manifest) one(t testing.TB, kind string, out any) {
	t.Helper()
	objs := m.ofKind(kind)
	if len(objs) != 1 {
		t.Fatalf("want exactly one %s, rendered %d", kind, len(objs))
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(objs[0].Object, out, true); err != nil {
		t.Fatalf("%s does not convert strictly: %v", kind, err)
	}
}

func (m manifest) deployment(t testing.TB) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	m.one(t, "Deployment", &d)
	return &d
}

func (m manifest) serviceAccount(t testing.TB) *corev1.ServiceAccount {
	t.Helper()
	var sa corev1.ServiceAccount
	m.one(t, "ServiceAccount", &sa)
	return &sa
}

// clusterRole is the operator's ClusterRole (not the users' roles).
func (m manifest) clusterRole(t testing.TB) *rbacv1.ClusterRole {
	t.Helper()
	return m.clusterRoleNamed(t, fullname)
}

func (m manifest) clusterRoleNamed(t testing.TB, name string) *rbacv1.ClusterRole {
	t.Helper()
	var named manifest
	for _, o := range m.ofKind("ClusterRole") {
		if o.GetName() == name {
			named = append(named, o)
		}
	}
	var r rbacv1.ClusterRole
	named.one(t, "ClusterRole", &r)
	return &r
}

// args returns the operator container's arguments.
func args(t testing.TB, d *appsv1.Deployment) []string {
	t.Helper()
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(d.Spec.Template.Spec.Containers))
	}
	return d.Spec.Template.Spec.Containers[0].Args
}

// flag returns the value of --name=value in args, and whether it is there.
func flag(a []string, name string) (string, bool) {
	for _, s := range a {
		if s == "--"+name {
			return "", true
		}
		if v, ok := strings.CutPrefix(s, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// flagValue is the value of --name, which must be in a.
func flagValue(t testing.TB, a []string, name string) string {
	t.Helper()
	v, ok := flag(a, name)
	if !ok {
		t.Fatalf("--%s missing from args %q", name, a)
	}
	return v
}

func wantFlag(t testing.TB, a []string, name, want string) {
	t.Helper()
	got, ok := flag(a, name)
	if !ok {
		t.Errorf("--%s missing from args %q", name, a)
		return
	}
	if got != want {
		t.Errorf("--%s=%q, want %q", name, got, want)
	}
}

func wantNoFlag(t testing.TB, a []string, name string) {
	t.Helper()
	if v, ok := flag(a, name); ok {
		t.Errorf("--%s=%q rendered, want it absent", name, v)
	}
}

// generatedRole is charts/aztenant/files/role.yaml as generated.
func generatedRole(t testing.TB) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir(t), "files", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var r rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// crdEntry is one entry of files/crds.yaml.
type crdEntry struct {
	Name   string `json:"name"`
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Plural string `json:"plural"`
}

// crdIndex reads files/crds.yaml, the chart's index of the CRDs the operator
// applies.
func crdIndex(t testing.TB) []crdEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir(t), "files", "crds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []crdEntry
	if err := yaml.UnmarshalStrict(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// indexNames are the names of every CRD of the index.
func indexNames(t testing.TB) []string {
	var names []string
	for _, e := range crdIndex(t) {
		names = append(names, e.Name)
	}
	return names
}

// crdUpdateNames are the CRDs the operator's ClusterRole may update.
func crdUpdateNames(t testing.TB, m manifest) []string {
	t.Helper()
	for _, r := range m.clusterRole(t).Rules {
		if slices.Contains(r.Resources, "customresourcedefinitions") && slices.Contains(r.Verbs, "update") {
			return r.ResourceNames
		}
	}
	return nil
}

// generatedIn names the CRDs of the generated kinds that join a hand-written group, as
// the chart lists them (files/generated-user-roles.yaml).
func generatedIn(group string) []string {
	data, err := os.ReadFile(filepath.Join("..", "aztenant", "files", "generated-user-roles.yaml"))
	if err != nil {
		panic(err)
	}
	var byGroup map[string][]string
	if err := yaml.Unmarshal(data, &byGroup); err != nil {
		panic(err)
	}
	var out []string
	for _, r := range byGroup[group+".aztenant.io"] {
		out = append(out, r+"."+group+".aztenant.io")
	}
	return out
}
