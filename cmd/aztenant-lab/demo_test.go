package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// `aztenant-lab demo up` runs the whole story with the real binaries (control
// plane, emulator, operator, kubectl as processes): onboarding, each team's
// developer applying the examples, the refusals, who wrote what in Azure and
// drift reverted. It leaves everything running with instructions, refuses to
// start twice, and `demo down` stops everything.
// It needs bin/operator and bin/azure-emulator: `make test` builds them.
func TestDemoUpAndDown(t *testing.T) {
	t.Parallel() // its own processes, ports and directory: the three stacks of the package run side by side
	dir := filepath.Join(t.TempDir(), "demo")
	t.Cleanup(func() { controlplane.StopDir(dir) })
	var out bytes.Buffer
	if err := demoUp(t.Context(), &out, dir); err != nil {
		t.Fatalf("demo up: %v\n%s", err, out.String())
	}
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
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out.String())
	}
	// The metrics endpoint printed answers, and the operator's log says what
	// it decided (never a token).
	if m := regexp.MustCompile(`curl -s (\S+)`).FindStringSubmatch(out.String()); m != nil {
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
	if err := demoUp(t.Context(), &out, dir); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second demo up: %v, want 'already running'", err)
	}
	if err := controlplane.StopDir(dir); err != nil {
		t.Fatal(err)
	}
	pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	if len(pids) != 0 {
		t.Errorf("pid files left after stop: %v", pids)
	}
	if _, err := os.Stat(filepath.Join(dir, "operator.log")); err != nil {
		t.Errorf("operator log missing: %v", err)
	}
}
