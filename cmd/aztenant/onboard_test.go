package main

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// onboard --print gives the platform team commands that trust exactly the
// namespace's ServiceAccount and grant roles on its resource groups only, and
// manifests that parse.
func TestOnboardPrint(t *testing.T) {
	var out bytes.Buffer
	o := onboardOptions{namespace: "team-c", subscription: "5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c", tenantID: "8f2c1c9e-0d7a-4c53-9a37-3f1d2b6a0c11",
		issuer: "https://oidc.example/abc/", location: "westeurope", identityGroup: "platform-identities", serviceAccount: "azure",
		resourceGroups: []string{"team-c-app", "team-c-data"}, print: true}
	if err := printOnboarding(&out, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"--subject system:serviceaccount:team-c:azure --audiences api://AzureADTokenExchange",
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
	manifests := text[strings.Index(text, "apiVersion: v1"):strings.Index(text, "# 3.")]
	docs := strings.Split(manifests, "\n---\n")
	if len(docs) != 4 {
		t.Fatalf("%d manifests, want 4", len(docs))
	}
	for _, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil || m["kind"] == nil {
			t.Errorf("manifest does not parse: %v\n%s", err, d)
		}
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
