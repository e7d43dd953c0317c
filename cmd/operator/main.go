// Command operator is the aztenant manager: flags, then the wiring in
// internal/operator, then run.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/sharding"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

type options struct {
	metricsAddr, probeAddr string
	leaderElect            bool
	leaderElectionNS       string
	defaultPolicy          string
	driftChecks            string
	otlpEndpoint           string
	policyConstraints      []string
	platformIdentity       string
	platformSpec           identityv1alpha1.IdentitySpec
	otlpInsecure           bool
	logLevel               string
	crdPattern             string
	crdManagement          string
	cloud                  identity.CloudFlags
	cfg                    operator.Config
	shards                 int
	shardIdentity          string
	shardLeasePrefix       string
	shardLeaseDuration     time.Duration
}

// gcPercent is the operator's GOGC unless the environment sets one. Its heap is mostly
// informer caches that live as long as it does, and at Go's default (100) the heap grows to
// twice what is live before a collection. At 50, `aztenant-lab bench --scenario footprint`
// measured (2026-12-07, one run each) an operator serving 10 kinds at 100.0 MiB RSS after
// start instead of 116.1, and one serving all 376 at 225.1 instead of 251.6, with the same
// start CPU (1.46 s and 6.68 s, against 1.47 s and 7.79 s).
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	var o options
	zopts := zap.Options{}
	fs := newFlagSet(&o, &zopts, pflag.ExitOnError)
	_ = fs.Parse(os.Args[1:])
	if err := applyLogLevel(fs, o.logLevel); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(newLogger(&zopts))
	ctrl.Log.WithName("setup").Info("starting aztenant operator", "version", buildVersion())

	if err := run(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), o); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// applyLogLevel maps --log-level onto zap's level (debug shows V(1) lines
// too). --zap-log-level keeps working on its own; --log-level, when given,
// decides.
func applyLogLevel(fs *pflag.FlagSet, level string) error {
	switch level {
	case "debug", "info", "error":
	default:
		return fmt.Errorf("--log-level %q: want debug, info or error", level)
	}
	if fs.Changed("log-level") || !fs.Changed("zap-log-level") {
		return fs.Set("zap-log-level", level)
	}
	return nil
}

func run(ctx context.Context, restCfg *rest.Config, o options) error {
	if o.cfg.TokenExpiry < 10*time.Minute {
		return fmt.Errorf("--serviceaccount-token-expiry %s is below the API server's minimum of 10m", o.cfg.TokenExpiry)
	}
	reconcilePolicy, err := reconcilers.ParsePolicy(o.defaultPolicy)
	if err != nil {
		return fmt.Errorf("--default-reconcile-policy: %w", err)
	}
	o.cfg.DefaultPolicy = reconcilePolicy
	switch o.driftChecks {
	case "list":
	case "get":
		o.cfg.GetDriftChecks = true
	default:
		return fmt.Errorf("--drift-checks %q: want list or get", o.driftChecks)
	}
	if o.cfg.PlatformIdentity, err = onboarding.ParsePlatformIdentity(o.platformIdentity); err != nil {
		return fmt.Errorf("--platform-identity: %w", err)
	}
	if o.cfg.OIDCIssuerURL != "" && !strings.HasPrefix(o.cfg.OIDCIssuerURL, "https://") {
		return fmt.Errorf("--oidc-issuer-url %q: Entra ID only trusts https issuers", o.cfg.OIDCIssuerURL)
	}
	sharded, err := checkShards(&o)
	if err != nil {
		return err
	}
	if o.cfg.Cloud, err = o.cloud.Cloud(); err != nil {
		return err
	}
	if len(o.policyConstraints) > 0 {
		if o.cfg.PolicyConstraints, err = policy.ReadManifests(o.policyConstraints...); err != nil {
			return fmt.Errorf("--policy-constraints: %w", err)
		}
	}
	if o.otlpEndpoint != "" {
		tp, err := operator.Tracing(ctx, o.otlpEndpoint, o.otlpInsecure)
		if err != nil {
			return fmt.Errorf("--otlp-endpoint: %w", err)
		}
		defer tp.Shutdown(context.Background())
	}
	kinds, err := crdinstall.ParsePattern(o.crdPattern)
	if err != nil {
		return fmt.Errorf("--crd-pattern: %w", err)
	}
	o.cfg.Kinds = &kinds
	scheme, err := operator.Scheme()
	if err != nil {
		return err
	}
	// An uncached client: the manager's cache is not started yet, and the
	// operator's namespace need not be one it serves.
	direct, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	switch o.crdManagement {
	case "auto":
		// Before the manager: Setup reads which kinds are installed.
		if _, err := operator.InstallCRDs(ctx, direct, kinds, 5*time.Minute); err != nil {
			return fmt.Errorf("install CRDs (--crd-management=auto): %w", err)
		}
	case "tenants":
		// The core kinds now; the others as Tenants name them.
		if _, err := operator.InstallCRDs(ctx, direct, crdinstall.Pattern{}, 5*time.Minute); err != nil {
			return fmt.Errorf("install CRDs (--crd-management=tenants): %w", err)
		}
		o.cfg.ActivateKinds = true
	case "none":
	default:
		return fmt.Errorf("--crd-management %q: want auto, tenants or none", o.crdManagement)
	}
	if sharded {
		return operator.RunSharded(ctx, restCfg, scheme, o.cfg, operator.ShardOptions{
			Shards: o.shards, Identity: o.shardIdentity, LeaseNamespace: o.leaderElectionNS, LeasePrefix: o.shardLeasePrefix,
			LeaseDuration: o.shardLeaseDuration, MetricsAddr: o.metricsAddr, ProbeAddr: o.probeAddr,
		}, nil)
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "aztenant-operator",
		LeaderElectionNamespace: o.leaderElectionNS,
		Cache:                   operator.CacheOptions(o.cfg.Served),
	})
	if err != nil {
		return err
	}
	if _, err := operator.Setup(ctx, mgr, o.cfg); err != nil {
		return err
	}
	if o.platformSpec.ClientID != "" {
		if o.cfg.PlatformIdentity.Name == "" {
			return fmt.Errorf("--platform-identity-client-id needs --platform-identity")
		}
		if err := onboarding.EnsurePlatformIdentity(ctx, direct, o.cfg.PlatformIdentity, o.platformSpec); err != nil {
			return err
		}
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// checkShards validates the --shards flags and fills in the replica's
// identity and the leases' namespace; it reports whether to run sharded.
func checkShards(o *options) (bool, error) {
	if o.shards <= 1 {
		return false, nil
	}
	switch {
	case o.shards > sharding.Buckets:
		return false, fmt.Errorf("--shards %d: at most %d", o.shards, sharding.Buckets)
	case o.leaderElect:
		return false, errors.New("--shards and --leader-elect exclude each other: with shards every replica works, on its share")
	case o.platformIdentity != "":
		// Onboarding reads a Tenant's objects in all its namespaces, which
		// no one replica caches.
		return false, errors.New("--shards does not support onboarding (--platform-identity) yet")
	}
	if o.shardIdentity == "" {
		o.shardIdentity = os.Getenv("POD_NAME")
	}
	if o.shardIdentity == "" {
		host, err := os.Hostname()
		if err != nil {
			return false, fmt.Errorf("--shard-identity: %w", err)
		}
		o.shardIdentity = host
	}
	if errs := validation.IsDNS1123Subdomain(sharding.MemberLease(o.shardLeasePrefix, o.shardIdentity)); len(errs) > 0 {
		return false, fmt.Errorf("--shard-identity %q with --shard-lease-prefix %q: not a lease name: %s", o.shardIdentity, o.shardLeasePrefix, strings.Join(errs, "; "))
	}
	if o.leaderElectionNS == "" {
		o.leaderElectionNS = os.Getenv("POD_NAMESPACE")
	}
	if o.leaderElectionNS == "" {
		b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
		if err != nil {
			return false, errors.New("--shards needs --leader-election-namespace outside a pod")
		}
		o.leaderElectionNS = strings.TrimSpace(string(b))
	}
	return true, nil
}
