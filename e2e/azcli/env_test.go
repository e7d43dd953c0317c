package azcli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// The chart installs its own CRDs and reservation policies (docs/install.md's
// helm block), so the control plane starts without them.
func TestMain(m *testing.M) { testenv.Main(m, testenv.WithoutCRDs(), testenv.WithoutReservation()) }

const (
	tenantID       = "11111111-1111-4111-8111-111111111111"
	subscriptionID = "22222222-2222-4222-8222-222222222222"
	platformID     = "33333333-3333-4333-8333-333333333333"
	platformSecret = "platform-s3cret"
	teamAClientID  = "44444444-4444-4444-8444-444444444444"
	teamAObjectID  = "55555555-5555-4555-8555-555555555555"

	contributorRoleID = "b24988ac-6180-42a0-ab88-20f7382dd24c"
	uaaRoleID         = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
)

// world is a real API server, the emulator binary trusting its
// service-account issuer, and what az and the README blocks need around
// them.
type world struct {
	env    *testenv.Env
	bin    string // bin/: kubectl, helm
	url    string // the emulator's
	caFile string // the emulator's CA
	tmp    string
}

// requireAZ finds az: its absence skips the test on a developer's machine
// and fails it in CI, which installs it.
func requireAZ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("az"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("az is not installed: .ci/run installs Debian's azure-cli, so CI must have it")
		}
		t.Skip("az is not installed (apt-get install azure-cli); CI installs it and runs this test")
	}
}

// newWorld starts cmd/azure-emulator as a process, as the emulator README
// shows, with the platform's app registration (client secret, Owner on the
// subscription) and team-a's, federated with team-a/deployer of the API
// server and without a role until the platform grants one.
func newWorld(t *testing.T) *world {
	t.Helper()
	requireAZ(t)
	env := testenv.Get(t)
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatalf("bin dir: %v (run `make tools`)", err)
	}
	w := &world{env: env, bin: bin, tmp: t.TempDir()}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: "team-a"}}
	if _, err := cs.CoreV1().ServiceAccounts("team-a").Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}

	exe := filepath.Join(w.tmp, "azure-emulator")
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, "./cmd/azure-emulator")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/azure-emulator: %v\n%s", err, out)
	}
	cfg := emulator.Config{Seed: emulator.Seed{
		Tenants:       []emulator.Tenant{{ID: tenantID, DisplayName: "Contoso CI"}},
		Subscriptions: []emulator.Subscription{{ID: subscriptionID, TenantID: tenantID, DisplayName: "ci"}},
		Principals: []emulator.Principal{
			{ClientID: platformID, TenantID: tenantID, DisplayName: "platform", ClientSecret: platformSecret,
				Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + subscriptionID}}},
			{ClientID: teamAClientID, ObjectID: teamAObjectID, TenantID: tenantID, DisplayName: "team-a-ci",
				FederatedCredentials: []emulator.FederatedCredential{{Name: "ci", Issuer: env.IssuerURL,
					Subject: "system:serviceaccount:team-a:deployer", Audiences: []string{"api://AzureADTokenExchange"}}}},
		},
	}}
	cfgFile := filepath.Join(w.tmp, "emulator.json")
	writeJSON(t, cfgFile, cfg)
	issuerCA := filepath.Join(w.tmp, "issuer-ca.pem")
	if err := os.WriteFile(issuerCA, env.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	w.caFile = filepath.Join(w.tmp, "emulator-ca.pem")
	// The README's flags, on a free port.
	cmd := exec.Command(exe, "--addr", "127.0.0.1:0", "--config", cfgFile, "--ca-out", w.caFile,
		"--trust-issuer", env.IssuerURL, "--trust-issuer-ca", issuerCA)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the test binary
	cmd.Stderr = &prefixWriter{t: t}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "AZURE_EMULATOR_URL="); ok {
				ready <- u
			}
		}
		close(ready)
	}()
	select {
	case u, ok := <-ready:
		if !ok {
			t.Fatal("the emulator exited before it was ready")
		}
		w.url = u
	case <-ctx.Done():
		t.Fatal("the emulator did not print its URL within 2 minutes")
	}
	return w
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// prefixWriter sends the emulator's log to the test log.
type prefixWriter struct{ t *testing.T }

func (p *prefixWriter) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		p.t.Log("emulator: " + l)
	}
	return len(b), nil
}

// shell runs a bash script with az signed in as whoever configDir holds,
// kubectl and helm of bin/ on the PATH, the admin kubeconfig and vars. It
// returns the combined output and the exit code.
func (w *world) shell(t *testing.T, configDir, script string, vars ...string) (string, int) {
	t.Helper()
	return w.shellIn(t, "../..", configDir, script, vars...)
}

// shellIn is shell in another working directory.
func (w *world) shellIn(t *testing.T, cwd, configDir, script string, vars ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", script)
	cmd.Dir = cwd // the repository for README paths (charts/aztenant)
	helmHome := filepath.Join(w.tmp, "helm")
	cmd.Env = append(os.Environ(),
		"PATH="+w.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG="+w.env.KubeconfigPath,
		"AZURE_CONFIG_DIR="+configDir,
		"REQUESTS_CA_BUNDLE="+w.caFile,
		"AZURE_CORE_COLLECT_TELEMETRY=false",
		"AZURE_CORE_SURVEY_MESSAGE=false",
		"AZURE_CORE_NO_COLOR=true",
		"HELM_CACHE_HOME="+filepath.Join(helmHome, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(helmHome, "config"),
		"HELM_DATA_HOME="+filepath.Join(helmHome, "data"),
		"E="+w.url, "TENANT="+tenantID, "SUB="+subscriptionID, "CLIENT_ID="+teamAClientID,
		"ISSUER="+w.env.IssuerURL,
	)
	cmd.Env = append(cmd.Env, vars...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("bash: %v\n%s", err, out)
		return "", -1
	}
}

// platform signs az in as the platform's app registration (client secret)
// in a config directory of its own, and returns that directory.
func (w *world) platform(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(w.tmp, "az-platform")
	out, code := w.shell(t, dir, `az cloud register -n azure-emulator --endpoint-resource-manager "$E" &&
az cloud set -n azure-emulator &&
az login --service-principal -u "$PLATFORM_ID" -p "$PLATFORM_SECRET" --tenant "$TENANT" -o none`,
		"PLATFORM_ID="+platformID, "PLATFORM_SECRET="+platformSecret)
	if code != 0 {
		t.Fatalf("platform login: exit %d\n%s", code, out)
	}
	return dir
}

// mustRun runs a script that must succeed and returns its output.
func (w *world) mustRun(t *testing.T, configDir, script string, vars ...string) string {
	t.Helper()
	out, code := w.shell(t, configDir, script, vars...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", script, code, out)
	}
	return out
}
