package main

import (
	"context"
	"encoding/json"
	"errors"
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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/lab/seed"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/planclient"
	"github.com/aztenant/aztenant/policy"
)

const demoDirDefault = ".aztenant/demo"

// The demo's Azure: one tenant, one subscription, and the platform team's app
// registration, federated with the operator namespace's ServiceAccount
// "aztenant-platform" and holding Contributor and User Access Administrator
// on the subscription: the operator onboards the teams with it.
const (
	demoTenant          = "8f2c1c9e-0d7a-4c53-9a37-3f1d2b6a0c11"
	demoSubscription    = "5b1e7c2a-6f4d-4e8b-9c0a-1d2e3f4a5b6c"
	demoPlatformClient  = "0c0c0c0c-3333-4333-8333-000000000003"
	demoOperatorNS      = "aztenant-system"
	demoPlatformAccount = "aztenant-platform"
)

var demoTeams = []string{"team-a", "team-b"}

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
			if errors.Is(err, errDemoRunning) {
				return err // the running demo is not this command's to stop
			}
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
	out      io.Writer
	dir      string
	bin      string
	examples string
	cp       *controlplane.ControlPlane
	c        client.Client
	emuURL   string
	http     *http.Client
	// metricsURL is the operator's Prometheus endpoint.
	metricsURL string
}

func (d *demo) step(format string, args ...any) { fmt.Fprintf(d.out, "\n==> "+format+"\n", args...) }

// errDemoRunning is demo up's refusal to start over a demo that runs.
var errDemoRunning = errors.New("a demo is already running")

func demoUp(ctx context.Context, out io.Writer, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); err == nil {
		return fmt.Errorf("%w in %s: run `make demo-down` first", errDemoRunning, dir)
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
	// The examples are the repository's: the demo applies them as users would.
	examples := filepath.Join(filepath.Dir(bin), "examples")
	if _, err := os.Stat(filepath.Join(examples, "onboarding")); err != nil {
		return fmt.Errorf("examples not found next to %s: run the demo from the repository (`make demo`)", bin)
	}
	d := &demo{out: out, dir: abs, bin: bin, examples: examples}
	start := time.Now()
	steps := []func(context.Context) error{d.startControlPlane, d.startEmulator, d.startOperator, d.onboard, d.applyAsTeams, d.showDenials, d.showAudit, d.showDrift, d.showPlan}
	for _, s := range steps {
		if err := s(ctx); err != nil {
			return fmt.Errorf("%w (logs in %s)", err, abs)
		}
	}
	fmt.Fprintf(out, `
Done in %s. Everything keeps running. Try:
  export KUBECONFIG=%s
  bin/kubectl get azure -A                      # every Azure resource, all namespaces
  bin/kubectl get tenants,identities -A
  bin/kubectl --as dev@team-a --as-group team-a apply -f examples/...   # act as team-a's developer
  bin/aztenant whoami -n team-a                 # the Azure principal team-a acts as
  tail -f %s   # the operator's log: a line per create, update, adopt, deny, delete, detach, token exchange
  curl -s %s | grep '^aztenant_'   # the operator's metrics
The Azure emulator (ARM and Entra ID) is at %s, its CA in %s.
Stop it with:
  make demo-down
`, time.Since(start).Round(time.Second), d.cp.KubeconfigPath, filepath.Join(abs, "operator.log"), d.metricsURL, d.emuURL, filepath.Join(abs, "emulator-ca.pem"))
	return nil
}

func (d *demo) startControlPlane(ctx context.Context) error {
	d.step("starting etcd and kube-apiserver (state in %s)", d.dir)
	if _, err := os.Stat(filepath.Join(d.dir, "etcd")); err == nil {
		return fmt.Errorf("%s holds a stopped demo's cluster: run `make demo-down` first", d.dir)
	}
	// The cluster starts as the Helm chart leaves it, from a copy of a seed built
	// once per content on this machine: the CRDs, applied as the operator applies
	// them, and the reservation of the provisioner accounts.
	crds, err := api.CRDs()
	if err != nil {
		return err
	}
	content := seed.Content{CRDs: crds, Reservation: true}
	fmt.Fprintf(d.out, "    with the %d CRDs and the reservation of the provisioner accounts, copied from a seed (the first demo on this machine builds it: about a minute)\n", len(crds))
	etcdSeed, err := seed.Dir(ctx, d.bin, content)
	if err != nil {
		return fmt.Errorf("control plane seed: %w", err)
	}
	// With kube-controller-manager's lifecycle controllers, as a real cluster
	// runs: garbage collection, namespace deletion, role aggregation.
	// The API server loads every generated CRD before it is ready: a busy machine
	// takes minutes.
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: d.dir, Detach: true, Controllers: controlplane.ControllersLifecycle, EtcdSeed: etcdSeed, StartTimeout: 4 * time.Minute})
	if err != nil {
		return err
	}
	d.cp = cp
	if err := content.Served(ctx, cp.Config); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "    kube-apiserver %s at %s; service-account issuer %s\n", v.GitVersion, cp.Config.Host, cp.IssuerURL)
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
	cfg.Principals = append(cfg.Principals, emulator.Principal{
		ClientID: demoPlatformClient, TenantID: demoTenant, DisplayName: "platform",
		FederatedCredentials: []emulator.FederatedCredential{{Name: "aks", Issuer: d.cp.IssuerURL,
			Subject: "system:serviceaccount:" + demoOperatorNS + ":" + demoPlatformAccount, Audiences: []string{identity.TokenAudience}}},
		Roles: []emulator.RoleAssignment{
			{Role: "Contributor", Scope: "/subscriptions/" + demoSubscription},
			{Role: "User Access Administrator", Scope: "/subscriptions/" + demoSubscription},
		},
	})
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
	emu, err := controlplane.StartDetached(d.dir, "azure-emulator", filepath.Join(d.bin, "azure-emulator"), []string{
		"--addr", "127.0.0.1:" + strconv.Itoa(port), "--config", cfgFile, "--ca-out", caFile,
		"--trust-issuer", d.cp.IssuerURL, "--trust-issuer-ca", filepath.Join(d.dir, "ca.crt"),
	}, nil)
	if err != nil {
		return err
	}
	// Its CA written, then its health answered over TLS with it; an emulator that
	// exits is reported at once, with its log (the operator's wait, below).
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := controlplane.WaitFor(wctx, "emulator", func(ctx context.Context) error {
		if d.http == nil {
			ca, err := os.ReadFile(caFile)
			if err != nil || len(ca) == 0 {
				return fmt.Errorf("its CA is not written yet (%s)", caFile)
			}
			if d.http, err = emulatorClient(ca); err != nil {
				return err
			}
		}
		return controlplane.GetOK(ctx, d.http, d.emuURL+"/_emulator/health")
	}, emu); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "    %s; one app registration, the platform team's (Contributor and User Access Administrator)\n", d.emuURL)
	return nil
}

func (d *demo) startOperator(ctx context.Context) error {
	d.step("starting the aztenant operator (each namespace acts with its own identity; onboarding with the platform's)")
	// What the Helm chart's platformIdentity values set up: the operator
	// namespace's ServiceAccount, federated with the platform's app
	// registration; the operator creates the Identity from its flags.
	// The namespace and the reservation (only the operator's user may act as a
	// namespace's provisioner account), as the chart installs them, are in the seed.
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: demoOperatorNS}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: demoPlatformAccount, Namespace: demoOperatorNS}},
	} {
		if err := client.IgnoreAlreadyExists(d.c.Create(ctx, o)); err != nil {
			return fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
	}
	probe, err := controlplane.FreePort()
	if err != nil {
		return err
	}
	metrics, err := controlplane.FreePort()
	if err != nil {
		return err
	}
	if metrics == probe {
		if metrics, err = controlplane.FreePort(); err != nil {
			return err
		}
	}
	d.metricsURL = "http://127.0.0.1:" + strconv.Itoa(metrics) + "/metrics"
	op, err := controlplane.StartDetached(d.dir, "operator", filepath.Join(d.bin, "operator"), []string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metrics), "--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probe),
		"--log-level=info",
		"--azure-authority-host=" + d.emuURL + "/", "--azure-arm-endpoint=" + d.emuURL,
		"--azure-arm-audience=https://management.core.windows.net/", "--azure-ca-bundle=" + filepath.Join(d.dir, "emulator-ca.pem"),
		// Short, so the demo shows drift being reverted.
		"--sync-period=15s",
		// The platform team's constraints, enforced by the operator itself
		// (no Gatekeeper in the demo).
		"--policy-constraints=" + filepath.Join(d.examples, "policy", "constraints.yaml"),
		"--platform-identity=" + demoOperatorNS + "/platform", "--platform-identity-service-account=" + demoPlatformAccount,
		"--platform-identity-client-id=" + demoPlatformClient, "--platform-identity-tenant-id=" + demoTenant,
		"--platform-identity-subscription-id=" + demoSubscription,
	}, []string{"KUBECONFIG=" + d.cp.OperatorKubeconfigPath})
	if err != nil {
		return err
	}
	plain := &http.Client{Timeout: 2 * time.Second}
	// It applies its CRDs before it is ready, as in a cluster: those of the seed are
	// current (the digest it records matches), so it writes none.
	fmt.Fprintln(d.out, "    it checks its CRDs first, as at every start, and finds them current")
	// Four seconds alone on 2 cores; minutes on a machine busy with other
	// work (CI runs the demo beside four other test binaries). An operator
	// that exits is reported at once, with its log.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := controlplane.WaitFor(wctx, "operator", func(ctx context.Context) error {
		return controlplane.GetOK(ctx, plain, "http://127.0.0.1:"+strconv.Itoa(probe)+"/readyz")
	}, op); err != nil {
		return err
	}
	// The operator checked its CRDs before it became ready, as in a cluster.
	crds := &metav1.PartialObjectMetadataList{}
	crds.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"})
	if err := d.c.List(ctx, crds); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "    ready, serving the %d CRDs; its log is %s, its metrics at %s\n", len(crds.Items), filepath.Join(d.dir, "operator.log"), d.metricsURL)
	return nil
}

func (d *demo) onboard(ctx context.Context) error {
	d.step("the platform team onboards team-a and team-b (kubectl apply -f examples/onboarding/)")
	fmt.Fprintln(d.out, "    namespaces, developer RBAC, and a Tenant per team with spec.onboarding: the operator creates")
	fmt.Fprintln(d.out, "    the team's resource group, a managed identity federated with <team>/aztenant-provisioner, Contributor on that")
	fmt.Fprintln(d.out, "    group only, the ServiceAccount and the default Identity")
	if _, err := d.kubectlQuiet(nil, "apply", "-f", filepath.Join(d.examples, "onboarding")); err != nil {
		return err
	}
	for _, t := range demoTeams {
		if _, err := d.kubectlQuiet(nil, "wait", "--for=condition=Onboarded", "--timeout=90s", "tenant/"+t); err != nil {
			out, _ := d.kubectlQuiet(nil, "get", "tenant", t, "-o", "jsonpath={.status.onboarding.steps}")
			return fmt.Errorf("tenant %s not onboarded: %w (steps: %s)", t, err, out)
		}
		if err := d.waitCondition(ctx, &identityv1alpha1.Identity{}, t, "default", func(o client.Object) []metav1.Condition {
			return o.(*identityv1alpha1.Identity).Status.Conditions
		}, "True"); err != nil {
			return err
		}
	}
	if err := d.kubectl("get", "tenants", "-o", "wide"); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    team-a's onboarding steps:")
	if err := d.kubectl("get", "tenant", "team-a", "-o", `jsonpath={range .status.onboarding.steps[*]}{.name}{"\t"}{.state}{"\t"}{.ids}{"\n"}{end}`); err != nil {
		return err
	}
	return d.kubectl("get", "identities", "-A", "-o", "wide")
}

// developer is how the demo acts as one of a team's developers: a user in the
// team's group, which examples/onboarding/developers.yaml binds in the
// team's namespace only.
func developer(team string) []string {
	return []string{"--as", "dev@" + team, "--as-group", team}
}

func (d *demo) applyAsTeams(ctx context.Context) error {
	d.step("each team's developer applies its examples in its own namespace")
	for _, a := range []struct{ team, folder string }{{"team-a", "app-stack"}, {"team-b", "aks"}} {
		fmt.Fprintf(d.out, "    dev@%s: kubectl apply -f examples/%s/\n", a.team, a.folder)
		if _, err := d.kubectlQuiet(nil, append(developer(a.team), "apply", "-f", filepath.Join(d.examples, a.folder))...); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.out, "    dev@team-a tries team-b's examples:")
	out, err := d.kubectlQuiet(nil, append(developer("team-a"), "apply", "-f", filepath.Join(d.examples, "aks"))...)
	if err == nil {
		return fmt.Errorf("team-a's developer could write in team-b's namespace:\n%s", out)
	}
	d.indent(forbidden(out))
	fmt.Fprintln(d.out, "    waiting for Azure (the emulator runs long operations like Azure's: Accepted, then polled) ...")
	for _, team := range []string{"team-a", "team-b"} {
		if _, err := d.kubectlQuiet(nil, "wait", "--for=condition=Ready", "--timeout=150s", "--all", "-n", team, "azure"); err != nil {
			return fmt.Errorf("%s's resources did not become Ready: %w", team, err)
		}
	}
	return d.kubectl("get", "azure", "-A")
}

func (d *demo) showDenials(ctx context.Context) error {
	d.step("what is refused, before anything reaches Azure")
	fmt.Fprintln(d.out, "    dev@team-a asks for a RoleAssignment making someone Owner (examples/policy/):")
	if _, err := d.kubectlQuiet(nil, append(developer("team-a"), "apply", "-f", filepath.Join(d.examples, "policy", "forbidden-roleassignment.yaml"))...); err != nil {
		return err
	}
	if err := d.waitReason(ctx, "team-a", "roleassignment.authorization.aztenant.io/make-me-owner", "PolicyDenied"); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    dev@team-a asks for a resource group outside its Tenant's bounds:")
	prodDB := `{"apiVersion":"resources.aztenant.io/v1alpha1","kind":"ResourceGroup","metadata":{"name":"prod-db","namespace":"team-a"},"spec":{"location":"westeurope"}}`
	if _, err := d.kubectlQuiet(strings.NewReader(prodDB), append(developer("team-a"), "apply", "-f", "-")...); err != nil {
		return err
	}
	if err := d.waitReason(ctx, "team-a", "resourcegroup.resources.aztenant.io/prod-db", "TenantPolicyDenied"); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    dev@team-a tries to give its namespace team-b's Azure identity:")
	teamB, err := d.clientIDOf(ctx, "team-b")
	if err != nil {
		return err
	}
	borrowed := `{"apiVersion":"identity.aztenant.io/v1alpha1","kind":"Identity","metadata":{"name":"borrowed","namespace":"team-a"},"spec":{"serviceAccountName":"` + identity.ProvisionerServiceAccount + `","clientID":"` + teamB + `","tenantID":"` + demoTenant + `","subscriptionID":"` + demoSubscription + `"}}`
	out, err := d.kubectlQuiet(strings.NewReader(borrowed), append(developer("team-a"), "apply", "-f", "-")...)
	if err == nil {
		return fmt.Errorf("a developer could write an Identity:\n%s", out)
	}
	d.indent(forbidden(out))
	fmt.Fprintln(d.out, "    and if a cluster admin wrote it anyway, Entra ID would refuse team-a's token for team-b's app:")
	if _, err := d.kubectlQuiet(strings.NewReader(borrowed), "apply", "-f", "-"); err != nil {
		return err
	}
	if err := d.waitReason(ctx, "team-a", "identity.identity.aztenant.io/borrowed", "FederationRejected"); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "    nobody but the operator can act as team-a's provisioner account (%s), not even a cluster admin:\n", identity.ProvisionerServiceAccount)
	out, err = d.kubectlQuiet(nil, "create", "token", identity.ProvisionerServiceAccount, "-n", "team-a", "--audience", identity.TokenAudience)
	if err == nil {
		return fmt.Errorf("a token for the provisioner account was issued")
	}
	d.indent(forbidden(out))
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"az","namespace":"team-a"},"spec":{"serviceAccountName":"` + identity.ProvisionerServiceAccount + `","containers":[{"name":"az","image":"mcr.microsoft.com/azure-cli"}]}}`
	out, err = d.kubectlQuiet(strings.NewReader(pod), "apply", "-f", "-")
	if err == nil {
		return fmt.Errorf("a pod running as the provisioner account was admitted")
	}
	d.indent(forbidden(out))
	return nil
}

// waitReason waits until the object's Ready condition has the reason, then
// prints the reason and message.
func (d *demo) waitReason(ctx context.Context, ns, obj, reason string) error {
	jp := `jsonpath={.status.conditions[?(@.type=="Ready")].reason}{"\t"}{.status.conditions[?(@.type=="Ready")].message}`
	var last string
	err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		out, err := d.kubectlQuiet(nil, "get", obj, "-n", ns, "-o", jp)
		if err != nil {
			return false, err
		}
		last = out
		if r, msg, ok := strings.Cut(out, "\t"); ok && r == reason {
			d.indent(r + ": " + msg)
			return true, nil
		}
		return false, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return fmt.Errorf("%s/%s: Ready reason did not become %s within 60s (last: %q)", ns, obj, reason, last)
	}
	return err
}

func (d *demo) showAudit(ctx context.Context) error {
	d.step("the emulator's audit log: which principal created each resource in Azure")
	var audit struct{ Value []emulator.AuditEntry }
	if err := d.getJSON(ctx, d.emuURL+"/_emulator/audit?service=arm&method=PUT", &audit); err != nil {
		return err
	}
	names := map[string]string{demoPlatformClient: "platform"}
	for _, t := range demoTeams {
		id, err := d.clientIDOf(ctx, t)
		if err != nil {
			return err
		}
		names[id] = t
	}
	seen := map[string]bool{}
	for _, e := range audit.Value {
		if e.Status >= 300 || seen[e.Path] {
			continue // the first successful write of each resource
		}
		seen[e.Path] = true
		who := names[e.ClientID]
		if who == "" {
			who = "client " + e.ClientID
		}
		fmt.Fprintf(d.out, "    %-8s %s\n", who, shortARMPath(e.Path))
	}
	return nil
}

// shortARMPath drops the subscription prefix, which is the same everywhere.
func shortARMPath(p string) string {
	return strings.TrimPrefix(p, "/subscriptions/"+demoSubscription)
}

// clientIDOf reads the client ID onboarding gave the team (its ServiceAccount's
// workload-identity annotation).
func (d *demo) clientIDOf(ctx context.Context, team string) (string, error) {
	var sa corev1.ServiceAccount
	if err := d.c.Get(ctx, client.ObjectKey{Namespace: team, Name: identity.ProvisionerServiceAccount}, &sa); err != nil {
		return "", err
	}
	if id := sa.Annotations[identity.AnnotationClientID]; id != "" {
		return id, nil
	}
	return "", fmt.Errorf("ServiceAccount %s/%s has no %s annotation", team, identity.ProvisionerServiceAccount, identity.AnnotationClientID)
}

func (d *demo) showDrift(ctx context.Context) error {
	id := "/subscriptions/" + demoSubscription + "/resourceGroups/team-b-aks/providers/Microsoft.ContainerService/managedClusters/team-b-cluster"
	d.step("someone scales team-b's AKS cluster to 5 nodes in the portal; the operator puts it back to the declared 1")
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, d.emuURL+"/_emulator/resources"+id,
		strings.NewReader(`{"properties":{"agentPoolProfiles":[{"name":"system","mode":"System","count":5,"vmSize":"Standard_D2s_v5"}]}}`))
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
	fmt.Fprintln(d.out, "    node count in Azure now: 5")
	start := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		var body struct {
			Properties struct {
				AgentPoolProfiles []struct{ Count int } `json:"agentPoolProfiles"`
			} `json:"properties"`
		}
		if err := d.getJSON(ctx, d.emuURL+"/_emulator/resources"+id, &body); err != nil {
			return false, err
		}
		p := body.Properties.AgentPoolProfiles
		return len(p) > 0 && p[0].Count == 1, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return fmt.Errorf("drift was not reverted within 90s")
	}
	if err == nil {
		fmt.Fprintf(d.out, "    reverted after %s: node count in Azure is 1 again\n", time.Since(start).Round(time.Second))
	}
	return err
}

// showPlan has team-a's developer ask what a change would do before applying it.
func (d *demo) showPlan(ctx context.Context) error {
	d.step("dev@team-a asks what a change would do in Azure before applying it (aztenant plan: nothing is written)")
	docs, err := policy.ReadManifests(filepath.Join(d.examples, "app-stack", "storage.yaml"))
	if err != nil {
		return err
	}
	for _, o := range docs {
		if o.GetKind() == "StorageAccount" {
			_ = unstructured.SetNestedStringMap(o.Object, map[string]string{"cost-center": "4711"}, "spec", "tags")
		}
	}
	more, err := policy.DecodeManifests("change", []byte(`
apiVersion: storage.aztenant.io/v1alpha1
kind: StorageAccountsBlobServicesContainer
metadata: {name: reports, namespace: team-a}
spec: {owner: {name: teamastack}}
---
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkInterface
metadata: {name: team-a-nic, namespace: team-a}
spec:
  owner: {armId: /subscriptions/`+demoSubscription+`/resourceGroups/team-a-stack}
  location: westeurope
  ipConfigurations:
    - name: ipconfig1
      privateIPAllocationMethod: Dynamic
      subnet: {reference: {armId: /subscriptions/`+demoSubscription+`/resourceGroups/team-b-aks/providers/Microsoft.Network/virtualNetworks/aks/subnets/nodes}}
`))
	if err != nil {
		return err
	}
	fmt.Fprintln(d.out, "    dev@team-a: aztenant plan -n team-a -f <examples/app-stack/storage.yaml with a new tag, a new container, a NIC on team-b's subnet>")
	cfg := rest.CopyConfig(d.cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "dev@team-a", Groups: []string{"team-a", "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: d.c.Scheme()})
	if err != nil {
		return err
	}
	objs, err := planclient.Plan(ctx, c, "team-a", append(docs, more...))
	if err != nil {
		return err
	}
	var buf strings.Builder
	if err := planclient.Print(&buf, "text", objs); err != nil {
		return err
	}
	d.indent(buf.String())
	return nil
}

func (d *demo) waitCondition(ctx context.Context, obj client.Object, ns, name string, conds func(client.Object) []metav1.Condition, status metav1.ConditionStatus) error {
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := d.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
			return false, nil
		}
		c := meta.FindStatusCondition(conds(obj), "Ready")
		return c != nil && c.Status == status, nil
	}); err != nil {
		return fmt.Errorf("%s/%s: Ready did not become %s within 60s: %w", ns, name, status, err)
	}
	return nil
}

// kubectl runs the real kubectl as cluster admin, its output indented into the demo's.
func (d *demo) kubectl(args ...string) error {
	out, err := d.kubectlQuiet(nil, args...)
	d.indent(out)
	return err
}

// kubectlQuiet runs kubectl and returns its combined output; an error carries it.
func (d *demo) kubectlQuiet(stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(d.bin, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.cp.KubeconfigPath)
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (d *demo) indent(text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(d.out, "    "+l)
	}
}

// forbidden picks the API server's reason out of kubectl's output for a
// refused request (kubectl wraps it in lines about what it was doing).
func forbidden(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := lines[i]; strings.Contains(l, "forbidden") {
			if _, reason, ok := strings.Cut(l, "is forbidden: "); ok {
				return "Forbidden: " + reason
			}
			return l
		}
	}
	return lines[0]
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
