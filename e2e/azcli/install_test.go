package azcli_test

import (
	"strings"
	"testing"
)

// TestInstallPage runs the sh blocks of docs/install.md's "Install on a real
// cluster" (the platform identity's az commands, then helm install) as they
// are written, signed in as a subscription Owner of the emulator, with
// ISSUER read from the API server as step 1 says, and checks what the text
// promises: the identity, its federated credential and its two roles in
// Azure, a deployed release whose operator runs as the ServiceAccount that
// credential names, configured with that identity. No kubelet runs, so no
// pod starts: helm's report and the objects are what there is to see.
func TestInstallPage(t *testing.T) {
	w := newWorld(t)
	admin := w.platform(t)
	var script strings.Builder
	script.WriteString("set -eu\nISSUER=$(kubectl get --raw /.well-known/openid-configuration | jq -r .issuer)\n")
	for _, b := range shBlocks(t, "../../docs/install.md", "## Install on a real cluster") {
		script.WriteString(strings.Join(b, "\n") + "\n")
	}
	// What the blocks leave in the shell, for the checks below.
	script.WriteString(`echo "PLATFORM_ID=$PLATFORM_ID"; echo "PLATFORM_OID=$PLATFORM_OID"; echo "ISSUER=$ISSUER"` + "\n")
	out := w.mustRun(t, admin, script.String(),
		"IMAGE_REPOSITORY=registry.example/aztenant-operator", "IMAGE_TAG=ci", "ISSUER=", "SUB=", "TENANT=")
	vars := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && (k == "PLATFORM_ID" || k == "PLATFORM_OID" || k == "ISSUER") {
			vars[k] = v
		}
	}
	if vars["ISSUER"] != w.env.IssuerURL || vars["PLATFORM_ID"] == "" || vars["PLATFORM_OID"] == "" {
		t.Fatalf("the blocks left ISSUER=%q (want %q), PLATFORM_ID=%q, PLATFORM_OID=%q\n%s", vars["ISSUER"], w.env.IssuerURL, vars["PLATFORM_ID"], vars["PLATFORM_OID"], out)
	}
	if !strings.Contains(out, "STATUS: deployed") {
		t.Errorf("helm install did not report STATUS: deployed:\n%s", out)
	}
	ev := []string{"PLATFORM_ID=" + vars["PLATFORM_ID"], "PLATFORM_OID=" + vars["PLATFORM_OID"]}
	for _, s := range []step{
		{cmd: `az identity federated-credential list -g platform-identities --identity-name aztenant-platform --query "[?issuer=='$ISSUER'].subject" -o tsv`,
			want: "system:serviceaccount:aztenant-system:aztenant"},
		{cmd: `az rest --method get --url "/subscriptions/$SUB/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01&\$filter=principalId%20eq%20'$PLATFORM_OID'" --query "value[?properties.scope=='/subscriptions/$SUB'].properties.roleDefinitionId" -o tsv | sort`,
			want: "roleDefinitions/18d7d88d-d35e-4fb5-a5c3-7773c20a72d9\n/subscriptions/" + subscriptionID + "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"},
		{cmd: `helm status aztenant -n aztenant-system`, want: "STATUS: deployed"},
		{cmd: `kubectl get deployment aztenant -n aztenant-system -o jsonpath='{.spec.template.spec.serviceAccountName} {.spec.template.spec.containers[0].image}'`,
			want: "aztenant registry.example/aztenant-operator:ci"},
		{cmd: `kubectl get serviceaccount aztenant -n aztenant-system -o name`, want: "serviceaccount/aztenant"},
		{cmd: `kubectl get deployment aztenant -n aztenant-system -o jsonpath='{.spec.template.spec.containers[0].args}'`,
			want: `"--platform-identity-client-id=` + vars["PLATFORM_ID"] + `","--platform-identity-tenant-id=` + tenantID + `","--platform-identity-subscription-id=` + subscriptionID + `"`},
		{cmd: `kubectl get deployment aztenant -n aztenant-system -o jsonpath='{.spec.template.spec.containers[0].args}'`,
			want: `"--oidc-issuer-url=` + w.env.IssuerURL + `"`},
	} {
		o, code := w.shell(t, admin, s.cmd, ev...)
		check(t, s, o, code)
	}
}
