package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/lab/seed"
	"github.com/aztenant/aztenant/internal/operator"
)

// The stack's Azure: one tenant and one subscription; every onboarded
// namespace gets an app registration of its own, federated with its
// reserved provisioner ServiceAccount and Contributor on the subscription.
const (
	TenantID       = "3c6d1f0e-7a2b-4c8d-9e1f-0a1b2c3d4e5f"
	SubscriptionID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	Location       = "westeurope"
)

// Options configure a Stack.
type Options struct {
	// Dir keeps logs, the emulator's config and state and the control plane's
	// data. Required.
	Dir string
	// BinDir holds etcd, kube-apiserver, azure-emulator and operator
	// (default: the repository's bin/ or $AZTENANT_BIN_DIR).
	BinDir string
	// Emulator is the emulator's base configuration (token lifetime, audit
	// size, LRO, faults); the tenant, subscription, issuer trust and state file
	// are added.
	Emulator emulator.Config
	// CRDPattern selects the Azure kinds whose CRDs are installed and which the operator
	// serves (its --crd-pattern; crdinstall patterns, as the chart's crds.pattern): empty
	// installs every kind's, as the bench measures.
	CRDPattern string
	// OperatorArgs are added to the operator's flags (--sync-period, --workers ...).
	OperatorArgs []string
	// Progress receives one line per step; nil discards them.
	Progress io.Writer
	// NoOperator starts no operator: the caller starts replicas
	// (StartReplicas).
	NoOperator bool
}

// Stack is the product running as processes: etcd and kube-apiserver, the
// Azure emulator and the operator.
type Stack struct {
	opts     Options
	bin      string
	CP       *controlplane.ControlPlane
	Client   client.Client
	Emulator *EmulatorClient
	EmuProc  *controlplane.Process
	Operator *controlplane.Process
	// MetricsURL and probeURL are the operator's endpoints.
	MetricsURL string
	probeURL   string
	// Replicas are the operator replicas StartReplicas started (--shards).
	Replicas   []*Replica
	replicaGen int
	// CRDs is the number of CRDs installed before the operator started.
	CRDs int
}

// Replica is one operator replica of a sharded operator.
type Replica struct {
	*controlplane.Process
	// Identity is its --shard-identity (its pod name in a cluster).
	Identity   string
	MetricsURL string
	probeURL   string
}

// ClientID is the app registration of a namespace onboarded by Onboard.
func ClientID(ns string) string {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte("aztenant-bench/"+ns)).String()
}

// Start launches the control plane, the emulator and the operator and waits
// until each is ready. Stop ends them.
func Start(ctx context.Context, opts Options) (s *Stack, err error) {
	if opts.Dir == "" {
		return nil, errors.New("bench: Options.Dir is required")
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, err
	}
	bin, err := controlplane.FindBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	for _, b := range []string{"operator", "azure-emulator"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return nil, fmt.Errorf("%s not found in %s: run `make build`", b, bin)
		}
	}
	s = &Stack{opts: opts, bin: bin}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	// The CRDs and the reservation (as the chart installs them: only the operator may
	// act as the provisioner accounts) come from a seed, built by the first stack.
	var keep func(schema.GroupKind, string) bool
	if opts.CRDPattern != "" {
		p, err := crdinstall.ParsePattern(opts.CRDPattern)
		if err != nil {
			return nil, err
		}
		keep = p.Selects
	}
	crds, err := api.CRDsOf(keep)
	if err != nil {
		return nil, err
	}
	content := seed.Content{CRDs: crds, Reservation: true}
	s.progress("starting etcd and kube-apiserver with the CRDs and the reservation (a first start installs them: about a minute)")
	etcdSeed, err := seed.Dir(ctx, bin, content)
	if err != nil {
		return nil, fmt.Errorf("control plane seed: %w", err)
	}
	if s.CP, err = controlplane.Start(ctx, controlplane.Options{BinDir: bin, Dir: filepath.Join(opts.Dir, "controlplane"), EtcdSeed: etcdSeed}); err != nil {
		return nil, err
	}
	if err := content.Served(ctx, s.CP.Config); err != nil {
		return nil, err
	}
	s.CRDs = len(crds)
	scheme, err := operator.Scheme()
	if err != nil {
		return nil, err
	}
	if s.Client, err = client.New(s.CP.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	s.progress("starting the Azure emulator")
	if err := s.startEmulator(ctx); err != nil {
		return nil, err
	}
	if opts.NoOperator {
		return s, nil
	}
	s.progress("starting the operator")
	if err := s.startOperator(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Stack) progress(format string, args ...any) {
	if s.opts.Progress != nil {
		fmt.Fprintf(s.opts.Progress, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

func (s *Stack) startEmulator(ctx context.Context) error {
	cfg := s.opts.Emulator
	cfg.Tenants = append(cfg.Tenants, emulator.Tenant{ID: TenantID})
	cfg.Subscriptions = append(cfg.Subscriptions, emulator.Subscription{ID: SubscriptionID, TenantID: TenantID})
	cfg.StateFile = filepath.Join(s.opts.Dir, "emulator-state.json")
	caFile := filepath.Join(s.opts.Dir, "emulator-ca.pem")
	cfg.CAFile = caFile
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	cfgFile := filepath.Join(s.opts.Dir, "emulator-config.json")
	if err := os.WriteFile(cfgFile, raw, 0o600); err != nil {
		return err
	}
	port, err := controlplane.FreePort()
	if err != nil {
		return err
	}
	s.EmuProc = &controlplane.Process{Name: "azure-emulator", Path: filepath.Join(s.bin, "azure-emulator"), Log: filepath.Join(s.opts.Dir, "azure-emulator.log"),
		Args: []string{"--addr", "127.0.0.1:" + strconv.Itoa(port), "--config", cfgFile, "--log-level", "warn",
			"--trust-issuer", s.CP.IssuerURL, "--trust-issuer-ca", filepath.Join(s.CP.Dir, "ca.crt")}}
	if err := s.EmuProc.Start(); err != nil {
		return err
	}
	var ca []byte
	if err := WaitUntil(ctx, 100*time.Millisecond, 30*time.Second, "the emulator's CA file", func() error {
		if err := s.EmuProc.Exited(); err != nil {
			return err
		}
		ca, err = os.ReadFile(caFile)
		if err == nil && len(ca) == 0 {
			err = errors.New("empty")
		}
		return err
	}); err != nil {
		return err
	}
	if s.Emulator, err = newEmulatorClient("https://127.0.0.1:"+strconv.Itoa(port), ca, cfg.StateFile); err != nil {
		return err
	}
	return WaitUntil(ctx, 100*time.Millisecond, 30*time.Second, "emulator health", func() error {
		if err := s.EmuProc.Exited(); err != nil {
			return err
		}
		return s.Emulator.Health(ctx)
	})
}

// operatorArgs are the flags every operator process gets, with its own
// metrics and probe ports.
func (s *Stack) operatorArgs(metricsPort, probePort int) []string {
	args := []string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
		"--azure-authority-host=" + s.Emulator.URL + "/", "--azure-arm-endpoint=" + s.Emulator.URL,
		"--azure-arm-audience=https://management.core.windows.net/",
		"--azure-ca-bundle=" + filepath.Join(s.opts.Dir, "emulator-ca.pem"),
		// The stack installed the CRDs (api.CRDs) before the operator starts.
		"--crd-management=none",
	}
	if s.opts.CRDPattern != "" {
		args = append(args, "--crd-pattern="+s.opts.CRDPattern)
	}
	return append(args, s.opts.OperatorArgs...)
}

func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		p, err := controlplane.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	return ports, nil
}

func (s *Stack) startOperator(ctx context.Context) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	s.MetricsURL = "http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/metrics"
	s.probeURL = "http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/readyz"
	s.Operator = &controlplane.Process{Name: "operator", Path: filepath.Join(s.bin, "operator"), Log: filepath.Join(s.opts.Dir, "operator.log"),
		Args: s.operatorArgs(ports[0], ports[1]), Env: []string{"KUBECONFIG=" + s.CP.OperatorKubeconfigPath}}
	return s.StartOperator(ctx)
}

// ShardLeaseNamespace holds the replicas' leases.
const ShardLeaseNamespace = "aztenant-system"

// StartReplicas stops the operator and any replicas, then starts n
// replicas with --shards=shards (and args), named op<generation>-<i>, and
// waits until each reports ready.
func (s *Stack) StartReplicas(ctx context.Context, n, shards int, args ...string) error {
	if s.Operator != nil {
		s.Operator.Stop(30 * time.Second)
	}
	s.StopReplicas()
	if err := s.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ShardLeaseNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	s.replicaGen++
	for i := range n {
		ports, err := freePorts(2)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("op%d-%d", s.replicaGen, i)
		r := &Replica{Identity: id, MetricsURL: "http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/metrics",
			probeURL: "http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/readyz"}
		r.Process = &controlplane.Process{Name: "operator " + id, Path: filepath.Join(s.bin, "operator"), Log: filepath.Join(s.opts.Dir, "operator-"+id+".log"),
			Args: append(s.operatorArgs(ports[0], ports[1]), fmt.Sprintf("--shards=%d", shards), "--leader-election-namespace="+ShardLeaseNamespace),
			Env:  []string{"KUBECONFIG=" + s.CP.OperatorKubeconfigPath, "POD_NAME=" + id}}
		r.Args = append(r.Args, args...)
		s.Replicas = append(s.Replicas, r)
		if err := r.Start(); err != nil {
			return err
		}
	}
	for _, r := range s.Replicas {
		if err := waitReady(ctx, r.Process, r.probeURL); err != nil {
			return err
		}
	}
	return nil
}

// RestartReplica starts a killed or stopped replica again as a new pod
// would: under a new identity (<identity>r), on the same ports.
func (s *Stack) RestartReplica(ctx context.Context, r *Replica) error {
	r.Identity += "r"
	for i, e := range r.Env {
		if strings.HasPrefix(e, "POD_NAME=") {
			r.Env[i] = "POD_NAME=" + r.Identity
		}
	}
	if err := r.Start(); err != nil {
		return err
	}
	return waitReady(ctx, r.Process, r.probeURL)
}

// StopReplicas ends every replica (SIGTERM: they hand their shards back).
func (s *Stack) StopReplicas() {
	for _, r := range s.Replicas {
		r.Stop(45 * time.Second)
	}
	s.Replicas = nil
}

// Metrics scrapes the replica's metrics endpoint.
func (r *Replica) Metrics(ctx context.Context) (Metrics, error) { return scrape(ctx, r.MetricsURL) }

// StartOperator starts the operator (again, after KillOperator or
// StopOperator) and waits until it reports ready.
func (s *Stack) StartOperator(ctx context.Context) error {
	if err := s.Operator.Start(); err != nil {
		return err
	}
	return waitReady(ctx, s.Operator, s.probeURL)
}

// waitReady waits until p's readiness probe answers OK.
func waitReady(ctx context.Context, p *controlplane.Process, probeURL string) error {
	plain := &http.Client{Timeout: 2 * time.Second}
	return WaitUntil(ctx, 100*time.Millisecond, 60*time.Second, p.Name+" readiness", func() error {
		if err := p.Exited(); err != nil {
			return err
		}
		return controlplane.GetOK(ctx, plain, probeURL)
	})
}

// KillOperator crashes the operator with SIGKILL: no shutdown code runs.
func (s *Stack) KillOperator() { s.Operator.Kill() }

// Stop ends the operator, the emulator and the control plane.
func (s *Stack) Stop() {
	if s.Operator != nil {
		s.Operator.Stop(10 * time.Second)
	}
	for _, r := range s.Replicas {
		r.Stop(10 * time.Second)
	}
	if s.EmuProc != nil {
		s.EmuProc.Stop(10 * time.Second)
	}
	if s.CP != nil {
		s.CP.Stop()
	}
}

// WaitUntil calls check every interval until it returns nil, returns controlplane.ErrExited (a process
// it depends on is gone, so waiting longer is pointless), ctx ends or timeout passes.
func WaitUntil(ctx context.Context, interval, timeout time.Duration, what string, check func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(context.Context) (bool, error) {
		last = check()
		if errors.Is(last, controlplane.ErrExited) {
			return false, last
		}
		return last == nil, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return fmt.Errorf("%s: not ready after %s: %w", what, timeout, last)
	}
	return err
}

// Onboard gives each namespace what a platform team gives a tenant: an app
// registration federated with the namespace's reserved provisioner
// ServiceAccount (Contributor on the subscription), the Namespace, that
// ServiceAccount, an Identity "default" with the client and tenant IDs and a Tenant allowing resource groups
// named "<namespace>-*" in westeurope. It does not wait for the Identities.
func (s *Stack) Onboard(ctx context.Context, namespaces ...string) error {
	var seed emulator.Seed
	for _, ns := range namespaces {
		seed.Principals = append(seed.Principals, emulator.Principal{
			ClientID: ClientID(ns), TenantID: TenantID, DisplayName: ns,
			FederatedCredentials: []emulator.FederatedCredential{{Name: "k8s", Issuer: s.CP.IssuerURL,
				Subject: "system:serviceaccount:" + ns + ":" + identity.ProvisionerServiceAccount, Audiences: []string{identity.TokenAudience}}},
			Roles: []emulator.RoleAssignment{{Role: "Contributor", Scope: "/subscriptions/" + SubscriptionID}},
		})
	}
	if err := s.Emulator.Seed(ctx, seed); err != nil {
		return err
	}
	for _, ns := range namespaces {
		for _, o := range []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: identity.ProvisionerServiceAccount, Namespace: ns}},
			&identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
				Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount,
					ClientID: ClientID(ns), TenantID: TenantID, SubscriptionID: SubscriptionID}},
			&tenancyv1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: tenancyv1alpha1.TenantSpec{
				Namespaces: []string{ns}, Subscriptions: []string{SubscriptionID},
				ResourceGroups: []string{ns + "-*"}, Locations: []azurev1alpha1.Location{Location}}},
		} {
			if err := s.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("onboard %s: create %T: %w", ns, o, err)
			}
		}
	}
	return nil
}
