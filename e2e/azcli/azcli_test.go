package azcli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// step is an az command and what a user sees from it.
type step struct {
	cmd    string
	fails  bool   // exits non-zero
	want   string // in its output
	absent string // not in its output
}

// TestAzCLI signs the real az CLI in with a ServiceAccount token of the
// API server, as the emulator README shows, and runs what a tenant's CI
// would: each command answers as Azure answers that principal, which holds
// Contributor on team-a-rg only.
func TestAzCLI(t *testing.T) {
	w := newWorld(t)
	admin := w.platform(t)
	// The platform's side: groups, one resource team-a may not see, and
	// team-a's role, granted with az rest (Debian's az fails in `az role
	// assignment create` before sending anything).
	w.mustRun(t, admin, `set -e
az group create -n team-a-rg -l westeurope -o none
az group create -n platform-rg -l westeurope -o none
az storage account create -g platform-rg -n platformst1 -l westeurope --sku Standard_LRS -o none
az rest --method put --url "/subscriptions/$SUB/resourceGroups/team-a-rg/providers/Microsoft.Authorization/roleAssignments/6f0c7c9e-3c1a-4f7e-9a51-2d3c4b5a6e7f?api-version=2022-04-01" \
  --body "{\"properties\":{\"roleDefinitionId\":\"/subscriptions/$SUB/providers/Microsoft.Authorization/roleDefinitions/`+contributorRoleID+`\",\"principalId\":\"`+teamAObjectID+`\",\"principalType\":\"ServicePrincipal\"}}" -o none`)

	dir := filepath.Join(w.tmp, "az-team-a")
	t.Run("emulator README block", func(t *testing.T) {
		runREADMEBlock(t, w, dir, "../../emulator/README.md", "## The az CLI against it")
	})
	if t.Failed() {
		t.FailNow() // the rest needs the login of that block
	}

	aksBody := `{"location":"westeurope","properties":{"dnsPrefix":"ci","agentPoolProfiles":[{"name":"system","mode":"System","count":1,"vmSize":"Standard_D2s_v5"}]}}`
	if err := os.WriteFile(filepath.Join(w.tmp, "aks.json"), []byte(aksBody), 0o600); err != nil {
		t.Fatal(err)
	}
	rg := "/subscriptions/$SUB/resourceGroups/team-a-rg"
	steps := []step{
		// Managed identities (2022-01-31-preview) and federated credentials.
		{cmd: `az identity create -g team-a-rg -n app --query type -o tsv`, want: "Microsoft.ManagedIdentity/userAssignedIdentities"},
		{cmd: `az identity show -g team-a-rg -n app --query tenantId -o tsv`, want: tenantID},
		{cmd: `az identity federated-credential create -g team-a-rg --identity-name app -n k8s --issuer "$ISSUER" --subject system:serviceaccount:team-a:app --audiences api://AzureADTokenExchange --query subject -o tsv`, want: "system:serviceaccount:team-a:app"},
		{cmd: `az identity federated-credential list -g team-a-rg --identity-name app --query "[].name" -o tsv`, want: "k8s"},
		{cmd: `az identity list --query "[].name" -o tsv`, want: "app"},
		// Storage (2022-09-01): the account the README block created.
		{cmd: `az storage account show -g team-a-rg -n teamaci1 --query primaryEndpoints.blob -o tsv`, want: "https://teamaci1.blob."},
		{cmd: `az storage account update -g team-a-rg -n teamaci1 --tags env=ci --query tags.env -o tsv`, want: "ci"},
		{cmd: `az storage account keys list -g team-a-rg -n teamaci1 --query "[].keyName" -o tsv`, want: "key2"},
		// Lists are filtered by what the principal may read, not refused.
		{cmd: `az storage account list --query "[].name" -o tsv`, want: "teamaci1", absent: "platformst1"},
		{cmd: `az resource list --query "[].name" -o tsv`, want: "teamaci1", absent: "platformst1"},
		{cmd: `az group show -n platform-rg`, fails: true, want: "AuthorizationFailed"},
		{cmd: `az storage account show -g platform-rg -n platformst1`, fails: true, want: "does not have authorization to perform action 'Microsoft.Storage/storageAccounts/read'"},
		// AKS (2022-11-01): created with az rest, read with az aks.
		{cmd: `az rest --method put --url "` + rg + `/providers/Microsoft.ContainerService/managedClusters/ci?api-version=2024-05-01" --body @"$TMP/aks.json" --query name -o tsv`, want: "ci"},
		{cmd: `az aks show -g team-a-rg -n ci --query "agentPoolProfiles[0].count" -o tsv`, want: "1"},
		{cmd: `az aks show -g team-a-rg -n ci --query provisioningState -o tsv`, want: "Succeeded"},
		{cmd: `az aks show -g platform-rg -n ci`, fails: true, want: "AuthorizationFailed"},
		// az resource picks its api-version from the provider metadata.
		{cmd: `az resource show --ids "` + rg + `/providers/Microsoft.Storage/storageAccounts/teamaci1" --query name -o tsv`, want: "teamaci1"},
		{cmd: `az resource show -g team-a-rg -n app --resource-type Microsoft.ManagedIdentity/userAssignedIdentities --query type -o tsv`, want: "Microsoft.ManagedIdentity/userAssignedIdentities"},
		{cmd: `az provider show -n Microsoft.ManagedIdentity --query "resourceTypes[?resourceType=='userAssignedIdentities'] | [0].apiVersions | contains(@, '2022-01-31-preview')" -o tsv`, want: "true"},
		// Versions Azure does not register are refused as ARM refuses them.
		{cmd: `az rest --method get --url "` + rg + `/providers/Microsoft.Storage/storageAccounts/teamaci1?api-version=2019-06-01"`, fails: true, want: "NoRegisteredProviderFound"},
		{cmd: `az rest --method get --url "` + rg + `?api-version=2099-01-01"`, fails: true, want: "InvalidApiVersionParameter"},
		// Deletes.
		{cmd: `az storage account delete -g team-a-rg -n teamaci1 -y && az identity delete -g team-a-rg -n app && az resource list -g team-a-rg --query "[].name" -o tsv`, absent: "teamaci1"},
	}
	for _, s := range steps {
		out, code := w.shell(t, dir, s.cmd, "TMP="+w.tmp)
		check(t, s, out, code)
	}
}

func check(t *testing.T, s step, out string, code int) {
	t.Helper()
	switch {
	case s.fails && code == 0:
		t.Errorf("%s: succeeded, want a failure\n%s", s.cmd, out)
	case !s.fails && code != 0:
		t.Errorf("%s: exit %d\n%s", s.cmd, code, out)
	case s.want != "" && !strings.Contains(out, s.want):
		t.Errorf("%s: output lacks %q:\n%s", s.cmd, s.want, out)
	case s.absent != "" && strings.Contains(out, s.absent):
		t.Errorf("%s: output has %q:\n%s", s.cmd, s.absent, out)
	}
}

// shBlocks returns the sh blocks of a README section (from its heading to
// the next heading of the same level), continuation lines kept.
func shBlocks(t *testing.T, path, heading string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("%s: no section %q", path, heading)
	}
	level := heading[:strings.Index(heading, " ")+1]
	section := text[i+len(heading):]
	if j := strings.Index(section, "\n"+level); j >= 0 {
		section = section[:j]
	}
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(section, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "```sh"):
			in, cur = true, nil
		case strings.HasPrefix(trimmed, "```") && in:
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, strings.TrimPrefix(l, strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " ")))))
		}
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: no sh block in %q", path, heading)
	}
	return blocks
}

var backticked = regexp.MustCompile("`([^`]+)`")

// runREADMEBlock runs the last sh block of a README section line by line
// in one shell (variables carry over), checking each line's outcome from
// its comment: "# exit 1: `X`" fails with X in its output, "# prints `X`"
// prints X (after the shell expands it), others succeed.
// The block runs in the emulator's directory, where its CA file is.
func runREADMEBlock(t *testing.T, w *world, configDir, path, heading string) {
	t.Helper()
	blocks := shBlocks(t, path, heading)
	var cmds []step
	cont := ""
	for _, l := range blocks[len(blocks)-1] {
		if strings.HasSuffix(l, "\\") {
			cont += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l, cont = cont+l, ""
		cmd, comment, _ := strings.Cut(l, "  # ")
		if strings.TrimSpace(cmd) == "" {
			continue
		}
		s := step{cmd: strings.TrimSpace(cmd), fails: strings.HasPrefix(comment, "exit 1")}
		if strings.HasPrefix(comment, "exit 1") || strings.HasPrefix(comment, "prints") {
			if m := backticked.FindStringSubmatch(comment); m != nil {
				s.want = m[1]
			}
		}
		cmds = append(cmds, s)
	}
	// One shell: each command's output and status go to files, the
	// expected text is expanded by the same shell.
	var script strings.Builder
	out := filepath.Join(w.tmp, "readme-out")
	if err := os.MkdirAll(out, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		fmt.Fprintf(&script, "{ %s\n} > %s/%d.out 2>&1; echo $? > %s/%d.rc\n", c.cmd, out, i, out, i)
		if c.want != "" {
			fmt.Fprintf(&script, "printf '%%s' \"%s\" > %s/%d.want\n", c.want, out, i)
		}
	}
	if o, code := w.shellIn(t, w.tmp, configDir, script.String()); code != 0 {
		t.Fatalf("running %s: exit %d\n%s", path, code, o)
	}
	for i, c := range cmds {
		got, _ := os.ReadFile(fmt.Sprintf("%s/%d.out", out, i))
		rc, _ := os.ReadFile(fmt.Sprintf("%s/%d.rc", out, i))
		code := 0
		fmt.Sscan(string(rc), &code)
		if c.want != "" {
			want, _ := os.ReadFile(fmt.Sprintf("%s/%d.want", out, i))
			c.want = string(want)
		}
		check(t, c, string(got), code)
	}
}
