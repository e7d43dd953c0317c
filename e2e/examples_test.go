package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// Every example applies as a user would, on the demo environment (binaries
// as processes), and becomes Ready; the AKS example's node count, changed in
// Azure, is put back.
func TestExamples(t *testing.T) {
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "demo")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "kubeconfig"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { controlplane.StopDir(dir) })
	demo := run("aztenant-lab", "demo", "up", "--dir", dir)
	m := regexp.MustCompile(`The Azure emulator \(ARM and Entra ID\) is at (https://\S+),`).FindStringSubmatch(demo)
	if m == nil {
		t.Fatalf("no emulator URL in the demo's output:\n%s", demo)
	}
	emuURL := m[1]

	// The demo applied them already (as each team's developer): applying
	// again changes nothing and everything stays Ready.
	folders := []string{"../examples/onboarding", "../examples/app-stack", "../examples/aks"}
	for _, f := range folders {
		run("kubectl", "apply", "--server-side", "--force-conflicts", "-f", f)
	}
	for _, f := range folders {
		for _, o := range azureObjects(t, f) {
			run("kubectl", "wait", "--for=condition=Ready", "--timeout=90s", o.kind+"/"+o.name, "-n", o.namespace)
		}
	}
	// The forbidden RoleAssignment is stopped by the operator's policy guard.
	run("kubectl", "apply", "-f", "../examples/policy/forbidden-roleassignment.yaml")
	run("kubectl", "wait", `--for=jsonpath={.status.conditions[?(@.type=="Ready")].reason}=PolicyDenied`, "--timeout=60s", "roleassignment.authorization.aztenant.io/make-me-owner", "-n", "team-a")
	conn := run("kubectl", "get", "secret", "stack-storage", "-n", "team-a", "-o", "jsonpath={.data.connectionString}")
	if !strings.HasPrefix(conn, "RGVmYXVsdEVuZHBvaW50c1Byb3RvY29sPWh0dHBz") { // base64 of DefaultEndpointsProtocol=https
		t.Errorf("storage connection string not exported: %q", conn)
	}

	// The AKS story: 1 node declared, 5 set in Azure, 1 again after a sync.
	ca, err := os.ReadFile(filepath.Join(dir, "emulator-ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	id := "/subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c/resourceGroups/team-b-aks/providers/Microsoft.ContainerService/managedClusters/team-b-cluster"
	req, _ := http.NewRequest(http.MethodPatch, emuURL+"/_emulator/resources"+id, bytes.NewBufferString(`{"properties":{"agentPoolProfiles":[{"name":"system","mode":"System","count":5,"vmSize":"Standard_D2s_v5"}]}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("out-of-band node count change: %v %v", err, resp)
	}
	resp.Body.Close()
	count := func() float64 {
		resp, err := hc.Get(emuURL + "/_emulator/resources" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Properties struct {
				AgentPoolProfiles []struct{ Count float64 } `json:"agentPoolProfiles"`
			} `json:"properties"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Properties.AgentPoolProfiles) == 0 {
			t.Fatalf("read cluster: %v", err)
		}
		return body.Properties.AgentPoolProfiles[0].Count
	}
	if n := count(); n != 5 {
		t.Fatalf("node count after the out-of-band change = %v, want 5", n)
	}
	testenv.Eventually(t, time.Minute, "node count reverted to 1", func() (bool, string) {
		n := count()
		return n == 1, fmt.Sprint(n)
	})

	// Every command the examples' READMEs show runs on the demo with the
	// outcome its text promises.
	t.Run("README commands", func(t *testing.T) {
		readmes, err := filepath.Glob("../examples/*/README.md")
		if err != nil {
			t.Fatal(err)
		}
		for _, readme := range append([]string{"../examples/README.md"}, readmes...) {
			for _, c := range readmeCommands(t, readme) {
				sh := func(line string) ([]byte, error) {
					cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
					cmd.Dir = ".."
					cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "kubeconfig"), "PATH="+bin+":"+os.Getenv("PATH"))
					return cmd.CombinedOutput()
				}
				out, err := sh(c.line)
				// A refusal by admission policy applied a moment earlier
				// comes once the API server has loaded it (seconds): an
				// apply admitted before that is undone and tried again.
				if c.fails && err == nil && strings.HasPrefix(c.line, "kubectl apply -f ") {
					_ = wait.PollUntilContextTimeout(t.Context(), 500*time.Millisecond, 20*time.Second, false, func(context.Context) (bool, error) {
						if undo, uerr := sh(strings.Replace(c.line, "kubectl apply", "kubectl delete --wait", 1)); uerr != nil {
							t.Fatalf("undo %q: %v\n%s", c.line, uerr, undo)
						}
						out, err = sh(c.line)
						return err != nil, nil
					})
				}
				switch {
				case c.fails && err == nil:
					t.Errorf("%s: %q succeeded; the README says it fails:\n%s", readme, c.line, out)
				case !c.fails && err != nil:
					t.Errorf("%s: %q: %v\n%s", readme, c.line, err, out)
				}
			}
		}
	})
}

// readmeCommand is one command of a README's sh block.
type readmeCommand struct {
	line  string
	fails bool // its comment says it is refused: it starts "denied" or "exit 1", or is "no"
}

// readmeCommands are the commands of a README's sh blocks that run on the
// demo, continuation lines joined. Left out, and said so in the README: ones
// that need real Azure (az, placeholders in <angle brackets>), starting the
// demo itself, and setting the KUBECONFIG the demo prints (the test sets it).
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeCommand
	in, cont := false, ""
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cont += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l, cont = cont+l, ""
		cmd, comment, _ := strings.Cut(l, " # ")
		cmd = strings.TrimSpace(cmd)
		if cmd == "" || strings.HasPrefix(cmd, "#") || strings.Contains(cmd, "<") || strings.HasPrefix(cmd, "az ") ||
			strings.HasPrefix(cmd, "make ") || strings.HasPrefix(cmd, "export KUBECONFIG=") {
			continue
		}
		comment = strings.ToLower(comment)
		comment = strings.TrimSpace(comment)
		out = append(out, readmeCommand{line: cmd, fails: strings.HasPrefix(comment, "denied") || strings.HasPrefix(comment, "exit 1") || comment == "no"})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no command found in its sh blocks", path)
	}
	return out
}

type objectRef struct{ kind, name, namespace string }

// azureObjects lists the aztenant resources (not Namespaces, ServiceAccounts,
// Secrets, Tenants) in a folder's manifests.
func azureObjects(t *testing.T, dir string) []objectRef {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []objectRef
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var o struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct{ Name, Namespace string }
			}
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if strings.Contains(o.APIVersion, ".aztenant.io/") && o.Kind != "Tenant" {
				out = append(out, objectRef{strings.ToLower(o.Kind) + "." + strings.Split(o.APIVersion, "/")[0], o.Metadata.Name, o.Metadata.Namespace})
			}
		}
	}
	return out
}
