package charttest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The chart README's `helm template` commands, and the bare `helm template
// charts/aztenant`, render as written from the repository root: offline, with
// no --kube-version (Helm then assumes Kubernetes v1.20.0, which a kubeVersion
// in Chart.yaml would refuse).
func TestDocumentedTemplate(t *testing.T) {
	root := repoRoot(t)
	cmds := documentedCommands(t, filepath.Join(chartDir(t), "README.md"), "helm template ")
	if len(cmds) == 0 {
		t.Fatal("charts/aztenant/README.md documents no `helm template` command")
	}
	for _, args := range append(cmds, []string{"helm", "template", "charts/aztenant"}) {
		out, errOut, err := helmIn(t, root, args[1:]...)
		if err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, errOut)
			continue
		}
		if m := parseManifest(t, out); len(m.ofKind("Deployment")) != 1 || len(m.ofKind("ValidatingAdmissionPolicy")) == 0 {
			t.Errorf("%s rendered %d Deployments and %d ValidatingAdmissionPolicies", strings.Join(args, " "),
				len(m.ofKind("Deployment")), len(m.ofKind("ValidatingAdmissionPolicy")))
		}
	}
}

// The chart's Kubernetes requirement is checked against the API server: a
// server without ValidatingAdmissionPolicy v1 (before 1.30) is refused, one
// with it is not. --api-versions stands for the server's discovery here;
// TestInstallUpgradeUninstall installs on a real one.
func TestRequiresValidatingAdmissionPolicy(t *testing.T) {
	server := []string{"template", release, chartDir(t), "--namespace", namespace, "--api-versions", "v1/Namespace"}
	if _, errOut, err := helm(t, server...); err == nil || !strings.Contains(errOut, "needs Kubernetes 1.30 or later") {
		t.Errorf("a server without ValidatingAdmissionPolicy v1: err %v, want the chart's refusal\n%s", err, errOut)
	}
	if _, errOut, err := helm(t, append(server, "--api-versions", "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")...); err != nil {
		t.Errorf("a server with ValidatingAdmissionPolicy v1: %v\n%s", err, errOut)
	}
}

// documentedCommands returns the commands of a Markdown file's ```sh blocks
// that start with prefix, continuation lines joined, split into words. They
// run without a shell, so one that needs a shell (variables, quotes, pipes,
// redirections) fails the test: document such commands differently.
func documentedCommands(t *testing.T, file, prefix string) [][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	inSh := false
	cmd := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = !inSh && line == "```sh"
			continue
		case !inSh:
			continue
		}
		cmd += line
		if c, ok := strings.CutSuffix(cmd, `\`); ok {
			cmd = c + " "
			continue
		}
		if strings.HasPrefix(cmd, prefix) {
			if strings.ContainsAny(cmd, "$'\"|<>;&`") {
				t.Errorf("%s: %q needs a shell", file, cmd)
			} else {
				out = append(out, strings.Fields(cmd))
			}
		}
		cmd = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
