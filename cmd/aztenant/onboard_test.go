package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// onboard --print gives the platform team commands that trust exactly the
// namespace's reserved provisioner ServiceAccount and grant roles on its
// resource groups only, and a cluster step that applies as printed.
func TestOnboardPrint(t *testing.T) {
	var out bytes.Buffer
	o := onboardOptions{namespace: "team-c", subscription: "5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c", tenantID: "8f2c1c9e-0d7a-4c53-9a37-3f1d2b6a0c11",
		issuer: "https://oidc.example/abc/", location: "westeurope", identityGroup: "platform-identities",
		resourceGroups: []string{"team-c-app", "team-c-data"}, print: true}
	if err := printOnboarding(&out, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"--subject system:serviceaccount:team-c:aztenant-provisioner --audiences api://AzureADTokenExchange",
		"--issuer https://oidc.example/abc/",
		"--scope /subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c/resourceGroups/team-c-app",
		"--scope /subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c/resourceGroups/team-c-data",
		// The names and role the operator's onboarding uses (tenancy/onboarding).
		"az identity create -g platform-identities -n " + onboarding.IdentityName("team-c") + " -l westeurope",
		"--identity-name aztenant-team-c -n " + onboarding.FederatedCredentialName("team-c") + " \\",
		`--role "Contributor" --scope`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(text, "--scope /subscriptions/5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c\n") {
		t.Error("a role at subscription scope is granted")
	}
	// Step 2 runs as printed, with the CLIENT_ID step 1 sets, against a real
	// API server (the reservation's admission policies included).
	env := testenv.Get(t)
	step2 := text[strings.Index(text, "# 2."):strings.Index(text, "# 3.")]
	kubectl, err := filepath.Abs("../../bin")
	if err != nil {
		t.Fatal(err)
	}
	sh := exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", step2)
	sh.Env = append(os.Environ(), "KUBECONFIG="+env.KubeconfigPath, "PATH="+kubectl+":"+os.Getenv("PATH"),
		"CLIENT_ID=0f9c6a0e-8d1b-4c1e-9f3e-2a7b5c4d3e21")
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("step 2 of the printed onboarding does not apply: %v\n%s", err, out)
	}
	var id identityv1alpha1.Identity
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: "team-c", Name: "default"}, &id); err != nil {
		t.Fatal(err)
	}
	if id.Spec.ClientID != "0f9c6a0e-8d1b-4c1e-9f3e-2a7b5c4d3e21" || id.Spec.ServiceAccountName != identity.ProvisionerServiceAccount {
		t.Errorf("the applied Identity is %+v", id.Spec)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: "team-c"}, &tenancyv1alpha1.Tenant{}); err != nil {
		t.Errorf("the Tenant was not applied: %v", err)
	}

	for _, bad := range []onboardOptions{
		{namespace: "team-c", print: true},
		{namespace: "Team_C", subscription: "s", tenantID: "t", issuer: "https://x", print: true},
		{namespace: "team-c", subscription: "s", tenantID: "t", issuer: "http://insecure", print: true},
		// Never a role that can grant access, as spec.onboarding refuses it.
		{namespace: "team-c", subscription: "s", tenantID: "t", issuer: "https://x", roles: []string{"Reader", "Owner"}, print: true},
		{namespace: "team-c", subscription: "s", tenantID: "t", issuer: "https://x", roles: []string{"User Access Administrator"}, print: true},
		// Never a role on the identities' own resource group.
		{namespace: "team-c", subscription: "s", tenantID: "t", issuer: "https://x", identityGroup: "ids", resourceGroups: []string{"IDS"}, print: true},
	} {
		if err := printOnboarding(&out, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
