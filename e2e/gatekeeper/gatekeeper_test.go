package gatekeeper

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"

	"github.com/aztenant/aztenant/internal/pki"
)

const (
	gatekeeperModule    = "github.com/open-policy-agent/gatekeeper/v3"
	gatekeeperNamespace = "gatekeeper-system"
	webhookName         = "aztenant-gatekeeper-validation"
	libraryDir          = "../../policy/library"
)

// The real Gatekeeper, as the API server's validating webhook, denies what
// the library forbids with the template's message when a tenant runs
// kubectl apply, and lets the rest through.
func TestGatekeeperAdmission(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	bin := gatekeeperBinary(t)
	installGatekeeperCRDs(t, env)
	createNamespace(t, env, "team-a")
	createNamespace(t, env, "team-b")
	prepareLibraryExamples(t, env)
	startGatekeeper(t, env, bin)

	applied := time.Now()
	crds := applyLibrary(t, env)
	accepted := time.Since(applied)
	first := waitEnforced(t, env)
	ms := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	t.Logf("templates applied -> constraint CRDs established: %v -> constraints applied: %v -> first denial: %v -> all enforced: %v",
		ms(crds), ms(accepted), ms(accepted+first), ms(time.Since(applied)))

	checkAdmission(t, env, `admission webhook "validation.gatekeeper.sh" denied the request`, true)
	checkLibraryExamples(t, env, true)
	// Last: it replaces the sample constraint of its template.
	t.Run("ReservedServiceAccount", func(t *testing.T) { checkReservedServiceAccount(t, env) })
}

// gatekeeperBinary is bin/gatekeeper; the test skips without it, except in CI.
func gatekeeperBinary(t *testing.T) string {
	t.Helper()
	dir, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gatekeeper")
	if _, err := os.Stat(bin); err != nil {
		// Like a missing kube-apiserver: make test builds it first.
		t.Fatalf("bin/gatekeeper is missing (%v): run `make tools`", err)
	}
	return bin
}

// gatekeeperVersion is the version hack/tools builds bin/gatekeeper from.
func gatekeeperVersion(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../hack/tools/versions.env")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "GATEKEEPER_VERSION="); ok {
			return v
		}
	}
	t.Fatal("GATEKEEPER_VERSION is not in hack/tools/versions.env")
	return ""
}

// installGatekeeperCRDs installs the CRDs of the Gatekeeper release that
// bin/gatekeeper is built from, read from its module (charts/gatekeeper/crds).
func installGatekeeperCRDs(t *testing.T, env *testenv.Env) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", gatekeeperModule+"@"+gatekeeperVersion(t)).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", gatekeeperModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download: no module directory in %s (%v)", out, err)
	}
	files, err := filepath.Glob(filepath.Join(mod.Dir, "charts", "gatekeeper", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under %s: %v", mod.Dir, err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds = append(crds, crd)
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: crds, Scheme: env.Scheme, MaxTime: testenv.CRDWait}); err != nil {
		t.Fatalf("install Gatekeeper's CRDs: %v", err)
	}
}

// startGatekeeper runs bin/gatekeeper out of cluster and registers it as the
// validating webhook for the aztenant API groups and the kinds of the
// reserved provisioner account's rules; both are undone when the test ends
// (the webhook first, so no request waits on a stopped server).
func startGatekeeper(t *testing.T, env *testenv.Env, bin string) {
	t.Helper()
	createNamespace(t, env, gatekeeperNamespace)
	dir := t.TempDir()
	caPEM := writeServingCert(t, dir)
	var webhookPort int
	// Ports are picked free, then bound by Gatekeeper; a package starting at
	// the same moment can take one in between. Retry with others.
	for attempt := 1; ; attempt++ {
		var err error
		if webhookPort, err = runGatekeeper(t, env, bin, dir, caPEM); err == nil {
			break
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("gatekeeper attempt %d: %v; retrying", attempt, err)
	}

	webhook := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validation.gatekeeper.sh",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL:      ptr.To(fmt.Sprintf("https://127.0.0.1:%d/v1/admit", webhookPort)),
				CABundle: caPEM,
			},
			Rules: webhookRules(t),
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{gatekeeperNamespace},
			}}},
			// Fail: a Gatekeeper that cannot answer must not look like one that allows.
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	if err := env.Client.Create(t.Context(), webhook); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Registered after the process cleanup, so it runs before it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := env.Client.Delete(ctx, webhook); err != nil {
			t.Errorf("delete webhook configuration: %v", err)
		}
	})
}

// runGatekeeper starts bin/gatekeeper with its certificate in dir, waits
// until it is ready and returns its webhook port; the process is stopped
// when the test ends, or at once if it does not become ready.
func runGatekeeper(t *testing.T, env *testenv.Env, bin, dir string, caPEM []byte) (int, error) {
	t.Helper()
	ports := freePorts(t, 3)
	webhookPort, healthPort, metricsPort := ports[0], ports[1], ports[2]
	logPath := filepath.Join(dir, "gatekeeper.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(bin,
		"--kubeconfig="+env.KubeconfigPath,
		// Out of cluster there is no Pod to report status for.
		"--debug-use-fake-pod",
		"--disable-cert-rotation", "--cert-dir="+dir,
		"--host=127.0.0.1", "--port="+strconv.Itoa(webhookPort),
		"--health-addr=127.0.0.1:"+strconv.Itoa(healthPort),
		"--metrics-addr=0", "--prometheus-port="+strconv.Itoa(metricsPort),
		"--disable-opa-builtin={http.send}",
		// Gatekeeper also makes ValidatingAdmissionPolicies of CEL templates
		// by default, and the API server runs those before any webhook: off,
		// so that the webhook is what this test sees deny.
		"--default-create-vap-for-templates=false", "--default-create-vap-binding-for-constraints=false",
	)
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+gatekeeperNamespace)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// A test binary killed by a timeout takes Gatekeeper with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return 0, fmt.Errorf("start gatekeeper: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logFile.Close(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}

	// Ready means the webhook serves and Gatekeeper has synced what exists.
	start := time.Now()
	ready := func() error {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", webhookPort), &tls.Config{RootCAs: pool(caPEM)})
		if err != nil {
			return err
		}
		return conn.Close()
	}
	errExited := errors.New("gatekeeper exited")
	var notReady error
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, enforceWithin, true, func(context.Context) (bool, error) {
		select {
		case <-exited:
			return false, errExited
		default:
		}
		notReady = ready()
		return notReady == nil, nil
	})
	switch {
	case errors.Is(err, errExited):
		return 0, fmt.Errorf("gatekeeper exited; log:\n%s", tail(logPath, 30))
	case err != nil:
		stop()
		return 0, fmt.Errorf("gatekeeper not ready within %v: %v; log:\n%s", enforceWithin, notReady, tail(logPath, 30))
	}
	t.Logf("gatekeeper ready in %v", time.Since(start).Round(10*time.Millisecond))
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("gatekeeper log (last lines):\n%s", tail(logPath, 30))
		}
	})
	return webhookPort, nil
}

// applyLibrary applies every template with kubectl, waits for Gatekeeper
// to establish their constraint CRDs, then applies the sample constraints
// (retried while kubectl's discovery catches up). It returns when the CRDs
// were established.
func applyLibrary(t *testing.T, env *testenv.Env) time.Duration {
	t.Helper()
	start := time.Now()
	tmpls, err := filepath.Glob(filepath.Join(libraryDir, "*", "template.yaml"))
	if err != nil || len(tmpls) == 0 {
		t.Fatalf("no templates in %s: %v", libraryDir, err)
	}
	if _, stderr, err := kubectl(t, env, "", append([]string{"apply"}, fileArgs(tmpls)...)...); err != nil {
		t.Fatalf("kubectl apply templates: %v\n%s", err, stderr)
	}
	testenv.Eventually(t, enforceWithin-time.Since(start), "constraint CRDs established", func() (bool, string) {
		var crds apiextensionsv1.CustomResourceDefinitionList
		if err := env.Client.List(t.Context(), &crds); err != nil {
			t.Fatal(err)
		}
		established := 0
		for _, c := range crds.Items {
			for _, cond := range c.Status.Conditions {
				if c.Spec.Group == "constraints.gatekeeper.sh" && cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					established++
				}
			}
		}
		return established == len(tmpls), fmt.Sprintf("%d of %d", established, len(tmpls))
	})
	crdsAt := time.Since(start)

	constraints, err := filepath.Glob(filepath.Join(libraryDir, "*", "samples", "*", "constraint.yaml"))
	if err != nil || len(constraints) == 0 {
		t.Fatalf("no sample constraints in %s: %v", libraryDir, err)
	}
	testenv.Eventually(t, enforceWithin-time.Since(start), "constraints accepted", func() (bool, string) {
		_, stderr, err := kubectl(t, env, "", append([]string{"apply"}, fileArgs(constraints)...)...)
		if err != nil {
			return false, fmt.Sprintf("%v\n%s", err, stderr)
		}
		return true, ""
	})
	return crdsAt
}

func fileArgs(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, "-f", f)
	}
	return out
}

// webhookRules send Gatekeeper what the library's templates review: every
// aztenant kind, and the kinds of the reservedserviceaccount template (its
// sample constraint's), including the serviceaccounts/token subresource
// that carries TokenRequests, which Gatekeeper's own chart does not
// register (its validatingWebhookSubResources).
func webhookRules(t *testing.T) []admissionregistrationv1.RuleWithOperations {
	t.Helper()
	rule := func(groups []string, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources},
		}
	}
	return []admissionregistrationv1.RuleWithOperations{
		rule(aztenantGroups(t), "*"),
		rule([]string{""}, "pods", "podtemplates", "replicationcontrollers", "serviceaccounts", "secrets", "serviceaccounts/token"),
		rule([]string{"apps"}, "deployments", "replicasets", "statefulsets", "daemonsets"),
		rule([]string{"batch"}, "jobs", "cronjobs"),
	}
}

// aztenantGroups are the API groups of the project's CRDs.
func aztenantGroups(t *testing.T) []string {
	t.Helper()
	crds, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range crds {
		if !seen[c.Spec.Group] {
			seen[c.Spec.Group] = true
			out = append(out, c.Spec.Group)
		}
	}
	sort.Strings(out)
	return out
}

// writeServingCert writes tls.crt and tls.key for 127.0.0.1 into dir and
// returns the CA that signed them, for the webhook's caBundle.
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	caPEM, err := pki.WriteServing(dir, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return caPEM
}

func pool(caPEM []byte) *x509.CertPool { return pki.PoolOf(caPEM) }

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
