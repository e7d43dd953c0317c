package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// `aztenant-lab demo up` runs the whole story with the real binaries (control
// plane, emulator, operator, kubectl as processes): onboarding, each team's
// developer applying the examples, the refusals, who wrote what in Azure and
// drift reverted; it leaves everything running with instructions. On that demo,
// every example applies again as a user would and stays Ready, the AKS example's
// node count changed in Azure is put back, and every command of the examples'
// READMEs has the outcome its text promises. A second `demo up` is refused, and
// `demo down` stops every process. One demo serves all of it: each start is a
// control plane, an emulator and an operator.
func TestDemoAndExamples(t *testing.T) {
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
	checkDemoOutput(t, dir, demo)

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

	if out, err := exec.Command(filepath.Join(bin, "aztenant-lab"), "demo", "up", "--dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("a second demo up: %v, want 'already running':\n%s", err, out)
	}
	pids := demoPIDs(t, dir)
	run("aztenant-lab", "demo", "down", "--dir", dir)
	for name, pid := range pids {
		if running(pid) {
			t.Errorf("%s (pid %d) still runs after demo down", name, pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("demo down left %s: %v", dir, err)
	}
}

// checkDemoOutput holds demo up's output to the story it tells, its metrics
// endpoint to answering, and the operator's log to saying what it decided, never
// a token.
func checkDemoOutput(t *testing.T, dir, out string) {
	t.Helper()
	for _, want := range []string{
		"kube-apiserver v1.37.2",
		"TokenExchanged", // both Identities federate
		// the operator onboarded each team with the platform identity
		"team-a   True    NamespacesSelected   [\"team-a\"]   True",
		"RoleAssignments\tReady\t[\"/subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c/resourceGroups/team-a-stack/providers/Microsoft.Authorization/roleAssignments/",
		"platform /resourceGroups/platform-identities/providers/Microsoft.ManagedIdentity/userAssignedIdentities/aztenant-team-a\n",
		// each team's developer may write in its own namespace only
		`Forbidden: User "dev@team-a" cannot get resource "managedclusters" in API group "containerservice.aztenant.io" in the namespace "team-b"`,
		"managedcluster.containerservice.aztenant.io/team-b-cluster   True    Succeeded",
		"storageaccount.storage.aztenant.io/teamastack   True    Succeeded",
		// by the operator's built-in rule and by the platform's constraint
		"PolicyDenied: denied by policy: [AztenantRoleAssignment/aztenant-default-no-privileged-roles] RoleAssignment make-me-owner grants privileged role Owner",
		"[AztenantRoleAssignment/no-privilege-escalation] RoleAssignment make-me-owner grants privileged role Owner",
		"TenantPolicyDenied: resource group \"prod-db\" is not allowed",
		`Forbidden: User "dev@team-a" cannot create resource "identities"`,
		"FederationRejected: Entra ID refused the token of ServiceAccount team-a/aztenant-provisioner",
		// nobody but the operator acts as the provisioner account
		"ValidatingAdmissionPolicy 'aztenant-provisioner-token' with binding 'aztenant-provisioner-token' denied request: ServiceAccount team-a/aztenant-provisioner is reserved for the aztenant operator: aztenant-admin may not request a token for it",
		"ValidatingAdmissionPolicy 'aztenant-provisioner-pods' with binding 'aztenant-provisioner-pods' denied request",
		"team-a   /resourceGroups/team-a-stack/providers/Microsoft.Storage/storageAccounts/teamastack\n", // written by team-a's own principal
		"team-b   /resourceGroups/team-b-aks/providers/Microsoft.ContainerService/managedClusters/team-b-cluster\n",
		"node count in Azure is 1 again", // drift reverted
		// plan: the developer sees each change before it is made
		"Update        StorageAccount.storage.aztenant.io teamastack",
		`~ tags.cost-center: (absent) -> "4711"`,
		"Create        StorageAccountsBlobServicesContainer.storage.aztenant.io reports",
		"Denied        NetworkInterface.network.aztenant.io team-a-nic (TenantPolicyDenied)",
		"export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"),
		"tail -f " + filepath.Join(dir, "operator.log"),
		"curl -s http://127.0.0.1:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo up's output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out)
	}
	if m := regexp.MustCompile(`curl -s (\S+)`).FindStringSubmatch(out); m != nil {
		resp, err := http.Get(m[1])
		if err != nil {
			t.Errorf("metrics: %v", err)
		} else {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), "controller_runtime_reconcile_total") {
				t.Errorf("metrics at %s: %.200s", m[1], body)
			}
		}
	}
	oplog, err := os.ReadFile(filepath.Join(dir, "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"msg":"token exchange"`, `"msg":"create"`, `"msg":"update"`, `"msg":"deny"`, `"reason":"TenantPolicyDenied"`, `"reason":"PolicyDenied"`, `"reason":"FederationRejected"`} {
		if !bytes.Contains(oplog, []byte(want)) {
			t.Errorf("operator log lacks %s", want)
		}
	}
	if bytes.Contains(oplog, []byte("eyJ")) {
		t.Error("the operator log holds a JWT")
	}
}

// running reports whether process pid runs: it exists and is not a zombie (the demo's
// processes outlive demo up, their parent; whoever adopts them may reap them late).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ")".
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// demoPIDs are the processes the demo in dir runs, by pid file.
func demoPIDs(t *testing.T, dir string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.pid"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pid files in %s: %v", dir, err)
	}
	pids := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pids[filepath.Base(f)] = pid
	}
	return pids
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
