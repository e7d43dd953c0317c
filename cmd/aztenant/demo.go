package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/api"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/e2e/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/controlplane"
	"github.com/aztenant/aztenant/internal/operator"
)

const demoDirDefault = ".aztenant/demo"

// The demo's Azure: one tenant, one subscription, and an app registration per
// team federated with the team namespace's ServiceAccount "azure".
const (
	demoTenant       = "8f2c1c9e-0d7a-4c53-9a37-3f1d2b6a0c11"
	demoSubscription = "5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c"
)

var demoTeams = []struct{ name, clientID string }{
	{"team-a", "0a0a0a0a-1111-4111-8111-000000000001"},
	{"team-b", "0b0b0b0b-2222-4222-8222-000000000002"},
}

func newDemoCommand() *cobra.Command {
	var dir string
	var down bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the product locally: a real kube-apiserver and etcd, the Azure emulator and the operator",
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", demoDirDefault, "folder for the demo's certificates, data, logs and kubeconfig")
	up := &cobra.Command{
		Use:   "up",
		Short: "Start everything, onboard two teams, apply their resources and show who did what",
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := demoUp(cmd.Context(), cmd.OutOrStdout(), dir)
			if down || err != nil {
				if stopErr := stopDemo(cmd.OutOrStdout(), dir, err == nil); stopErr != nil && err == nil {
					err = stopErr
				}
			}
			return err
		},
	}
	up.Flags().BoolVar(&down, "down", false, "tear everything down at the end instead of leaving it running")
	cmd.AddCommand(up, &cobra.Command{
		Use:   "down",
		Short: "Stop what `demo up` started and remove its folder",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return stopDemo(cmd.OutOrStdout(), dir, true)
		},
	})
	return cmd
}

func stopDemo(out io.Writer, dir string, remove bool) error {
	if err := controlplane.StopDir(dir); err != nil {
		return err
	}
	if !remove {
		fmt.Fprintf(out, "stopped; logs kept in %s\n", dir)
		return nil
	}
	fmt.Fprintf(out, "stopped; removing %s\n", dir)
	return os.RemoveAll(dir)
}

// demo holds what the running demo needs.
type demo struct {
	out    io.Writer
	dir    string
	bin    string
	cp     *controlplane.ControlPlane
	c      client.Client
	emuURL string
	http   *http.Client
}

func (d *demo) step(format string, args ...any) { fmt.Fprintf(d.out, "\n==> "+format+"\n", args...) }

func demoUp(ctx context.Context, out io.Writer, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); err == nil {
		return fmt.Errorf("a demo is already running in %s: run `make demo-down` first", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		return err
	}
	for _, b := range []string{"operator", "azure-emulator", "kubectl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return fmt.Errorf("%s not found in %s: run `make build` (or `make demo`, which builds it)", b, bin)
		}
	}
	d := &demo{out: out, dir: abs, bin: bin}
	start := time.Now()
	steps := []func(context.Context) error{d.startControlPlane, d.startEmulator, d.startOperator, d.onboard, d.applyResources, d.showDenials, d.showAudit, d.showDrift}
	for _, s := range steps {
		if err := s(ctx); err != nil {
			return fmt.Errorf("%w (logs in %s)", err, abs)
		}
	}
	fmt.Fprintf(out, `
Done in %s. Everything keeps running. Try:
  export KUBECONFIG=%s
  bin/kubectl get resourcegroups,identities -A
  bin/kubectl get tenants
  bin/aztenant whoami -n team-a --azure-authority-host %s/ --azure-arm-endpoint %s --azure-arm-audience https://management.core.windows.net/ --azure-ca-bundle %s
Stop it with:
  make demo-down
`, time.Since(start).Round(time.Second), d.cp.KubeconfigPath, d.emuURL, d.emuURL, filepath.Join(abs, "emulator-ca.pem"))
	return nil
}

func (d *demo) startControlPlane(ctx context.Context) error {
	d.step("starting etcd and kube-apiserver (state in %s)", d.dir)
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: d.dir, Detach: true})
	if err != nil {
		return err
	}
	d.cp = cp
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "    kube-apiserver %s at %s; service-account issuer %s\n", v.GitVersion, cp.Config.Host, cp.IssuerURL)
	crds, err := api.CRDs()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	fmt.Fprintf(d.out, "    installed %d CRDs\n", len(crds))
	scheme, err := operator.Scheme()
	if err != nil {
		return err
	}
	d.c, err = client.New(cp.Config, client.Options{Scheme: scheme})
	return err
}

func (d *demo) startEmulator(ctx context.Context) error {
	d.step("starting the Azure emulator (Entra ID + ARM over TLS), trusting the cluster's issuer")
	cfg := emulator.Config{Seed: emulator.Seed{
		Tenants:       []emulator.Tenant{{ID: demoTenant, DisplayName: "demo"}},
		Subscriptions: []emulator.Subscription{{ID: demoSubscription, TenantID: demoTenant, DisplayName: "demo"}},
	}}
	for _, t := range demoTeams {
		cfg.Principals = append(cfg.Principals, emulator.Principal{
			ClientID: t.clientID, TenantID: demoTenant, DisplayName: t.name,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "aks", Issuer: d.cp.IssuerURL, Subject: "system:serviceaccount:" + t.name + ":azure", Audiences: []string{identity.TokenAudience}}},
			// Contributor on the subscription so the team can create its resource
			// groups; which groups is bounded by its Tenant.
			Roles: []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + demoSubscription}},
		})
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	cfgFile := filepath.Join(d.dir, "emulator-config.json")
	if err := os.WriteFile(cfgFile, raw, 0o600); err != nil {
		return err
	}
	port, err := controlplane.FreePort()
	if err != nil {
		return err
	}
	d.emuURL = "https://127.0.0.1:" + strconv.Itoa(port)
	caFile := filepath.Join(d.dir, "emulator-ca.pem")
	if err := controlplane.StartDetached(d.dir, "azure-emulator", filepath.Join(d.bin, "azure-emulator"), []string{
		"--addr", "127.0.0.1:" + strconv.Itoa(port), "--config", cfgFile, "--ca-out", caFile,
		"--trust-issuer", d.cp.IssuerURL, "--trust-issuer-ca", filepath.Join(d.dir, "ca.crt"),
	}, nil); err != nil {
		return err
	}
	if err := waitFile(ctx, caFile); err != nil {
		return fmt.Errorf("emulator did not write its CA: %w", err)
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	d.http, err = emulatorClient(ca)
	if err != nil {
		return err
	}
	if err := d.waitHTTP(ctx, d.emuURL+"/_emulator/health"); err != nil {
		return fmt.Errorf("emulator not healthy: %w", err)
	}
	fmt.Fprintf(d.out, "    %s; app registrations for team-a and team-b, each federated with its own namespace's ServiceAccount\n", d.emuURL)
	return nil
}

func (d *demo) startOperator(ctx context.Context) error {
	d.step("starting the aztenant operator (each namespace acts with its own identity)")
	probe, err := controlplane.FreePort()
	if err != nil {
		return err
	}
	if err := controlplane.StartDetached(d.dir, "operator", filepath.Join(d.bin, "operator"), []string{
		"--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probe),
		"--azure-authority-host=" + d.emuURL + "/", "--azure-arm-endpoint=" + d.emuURL,
		"--azure-arm-audience=https://management.core.windows.net/", "--azure-ca-bundle=" + filepath.Join(d.dir, "emulator-ca.pem"),
		// Short, so the demo shows drift being reverted.
		"--sync-period=15s",
	}, []string{"KUBECONFIG=" + d.cp.KubeconfigPath}); err != nil {
		return err
	}
	plain := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := plain.Get("http://127.0.0.1:" + strconv.Itoa(probe) + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operator not ready after 60s")
		}
	}
	fmt.Fprintln(d.out, "    ready")
	return nil
}

func (d *demo) onboard(ctx context.Context) error {
	d.step("platform team onboards team-a and team-b: namespace, ServiceAccount, Identity, Tenant")
	for _, t := range demoTeams {
		objs := []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.name}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: t.name, Annotations: map[string]string{
				identity.AnnotationClientID: t.clientID, identity.AnnotationTenantID: demoTenant,
			}}},
			&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: t.name},
				Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: demoSubscription}},
			&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: t.name}, Spec: tenancyv1alpha1.TenantSpec{
				Namespaces: []string{t.name}, Subscriptions: []string{demoSubscription},
				ResourceGroups: []string{t.name + "-*"}, Locations: []string{"westeurope"},
			}},
		}
		for _, o := range objs {
			if err := d.c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
	}
	for _, t := range demoTeams {
		if err := d.waitCondition(ctx, &identityv1alpha1.Identity{}, t.name, "default", func(o client.Object) []metav1.Condition {
			return o.(*identityv1alpha1.Identity).Status.Conditions
		}, "True"); err != nil {
			return err
		}
	}
	return d.kubectl("get", "identities", "-A", "-o", "wide")
}

func (d *demo) applyResources(ctx context.Context) error {
	d.step("each team applies a ResourceGroup in its own namespace")
	for _, t := range demoTeams {
		rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: t.name + "-app", Namespace: t.name},
			Spec: resourcesv1alpha1.ResourceGroupSpec{Location: "westeurope", Tags: map[string]string{"team": t.name}}}
		if err := d.c.Create(ctx, rg); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	for _, t := range demoTeams {
		if err := d.waitCondition(ctx, &resourcesv1alpha1.ResourceGroup{}, t.name, t.name+"-app", rgConditions, "True"); err != nil {
			return err
		}
	}
	return d.kubectl("get", "resourcegroups", "-A")
}

func rgConditions(o client.Object) []metav1.Condition {
	return o.(*resourcesv1alpha1.ResourceGroup).Status.Conditions
}

func (d *demo) showDenials(ctx context.Context) error {
	d.step("what is refused, before anything reaches Azure")
	deny := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: "prod-db", Namespace: "team-a"},
		Spec: resourcesv1alpha1.ResourceGroupSpec{Location: "westeurope"}}
	borrowed := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "borrowed", Namespace: "team-a"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", ClientID: demoTeams[1].clientID, TenantID: demoTenant, SubscriptionID: demoSubscription}}
	for _, o := range []client.Object{deny, borrowed} {
		if err := d.c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	if err := d.waitCondition(ctx, &resourcesv1alpha1.ResourceGroup{}, "team-a", "prod-db", rgConditions, "False"); err != nil {
		return err
	}
	if err := d.waitCondition(ctx, &identityv1alpha1.Identity{}, "team-a", "borrowed", func(o client.Object) []metav1.Condition {
		return o.(*identityv1alpha1.Identity).Status.Conditions
	}, "False"); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    team-a asks for a resource group outside its Tenant's bounds:")
	if err := d.kubectl("get", "resourcegroup", "prod-db", "-n", "team-a", "-o", `jsonpath=      {.status.conditions[?(@.type=="Ready")].reason}: {.status.conditions[?(@.type=="Ready")].message}{"\n"}`); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    team-a names team-b's client ID in an Identity of its own:")
	return d.kubectl("get", "identity", "borrowed", "-n", "team-a", "-o", `jsonpath=      {.status.conditions[?(@.type=="Ready")].reason}: {.status.conditions[?(@.type=="Ready")].message}{"\n"}`)
}

func (d *demo) showAudit(ctx context.Context) error {
	d.step("the emulator's audit log: which principal wrote each resource group")
	var audit struct{ Value []emulator.AuditEntry }
	if err := d.getJSON(ctx, d.emuURL+"/_emulator/audit?service=arm&method=PUT", &audit); err != nil {
		return err
	}
	entries := audit.Value
	names := map[string]string{}
	for _, t := range demoTeams {
		names[t.clientID] = t.name
	}
	for _, e := range entries {
		fmt.Fprintf(d.out, "    %s %-70s %d  by %s (client %s, object %s)\n", e.Method, e.Path, e.Status, names[e.ClientID], e.ClientID, e.PrincipalID)
	}
	return nil
}

func (d *demo) showDrift(ctx context.Context) error {
	id := "/subscriptions/" + demoSubscription + "/resourceGroups/team-a-app"
	d.step("someone edits team-a-app's tags in the portal; the operator puts them back at the next sync")
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, d.emuURL+"/_emulator/resources"+id, strings.NewReader(`{"tags":{"team":"someone-else"}}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := d.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("out-of-band change refused by the emulator: %s", resp.Status)
	}
	fmt.Fprintln(d.out, "    tags in Azure now: team=someone-else")
	start := time.Now()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var body struct{ Tags map[string]string }
		if err := d.getJSON(ctx, d.emuURL+"/_emulator/resources"+id, &body); err != nil {
			return err
		}
		if body.Tags["team"] == "team-a" {
			fmt.Fprintf(d.out, "    reverted after %s: tags in Azure are team=team-a again\n", time.Since(start).Round(time.Second))
			return nil
		}
	}
	return fmt.Errorf("drift was not reverted within 60s")
}

func (d *demo) waitCondition(ctx context.Context, obj client.Object, ns, name string, conds func(client.Object) []metav1.Condition, status metav1.ConditionStatus) error {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err := d.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
			continue
		}
		if c := meta.FindStatusCondition(conds(obj), "Ready"); c != nil && c.Status == status {
			return nil
		}
	}
	return fmt.Errorf("%s/%s: Ready did not become %s within 60s", ns, name, status)
}

func (d *demo) kubectl(args ...string) error {
	cmd := exec.Command(filepath.Join(d.bin, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.cp.KubeconfigPath)
	cmd.Stdout, cmd.Stderr = d.out, d.out
	return cmd.Run()
}

func (d *demo) getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (d *demo) waitHTTP(ctx context.Context, url string) error {
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := d.http.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s", resp.Status)
		}
		last = err
	}
	return last
}

func waitFile(ctx context.Context, path string) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("%s not written within 30s", path)
}
