// Command operator is the aztenant manager: flags, then the wiring in
// internal/operator, then run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
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

func main() {
	var o options
	fs := pflag.NewFlagSet("operator", pflag.ExitOnError)
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 disables it")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader so only one replica reconciles")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "namespace of the leader-election lease, and of the shard leases with --shards (default: the pod's namespace)")
	fs.IntVar(&o.shards, "shards", 0, "share the namespaces out across replicas: N shards (2 to 64), each held by one replica through a lease, each replica caching and reconciling only its shards' namespaces and taking over a dead replica's; 0 or 1: one replica reconciles everything (with --leader-elect, the others stand by)")
	fs.StringVar(&o.shardIdentity, "shard-identity", "", "with --shards: this replica's identity, unique among the replicas (default: $POD_NAME, else the host name)")
	fs.StringVar(&o.shardLeasePrefix, "shard-lease-prefix", "aztenant", "with --shards: the leases are <prefix>-shard-<k> and <prefix>-member-<identity>")
	fs.DurationVar(&o.shardLeaseDuration, "shard-lease-duration", 10*time.Second, "with --shards: how long a dead replica's shards stay held before another replica takes them over (it renews every fifth of it, and stops working on a shard it could not renew for 70 % of it)")
	fs.DurationVar(&o.cfg.TokenExpiry, "serviceaccount-token-expiry", time.Hour, "lifetime requested for ServiceAccount tokens exchanged with Entra ID (the API server's minimum is 10m)")
	fs.DurationVar(&o.cfg.IdentityResync, "identity-resync", 30*time.Minute, "how often a Ready Identity's federation is checked again")
	fs.DurationVar(&o.cfg.SyncPeriod, "sync-period", time.Hour, "how often an unchanged resource is compared with Azure to revert drift (a tenth is added at random); the annotation aztenant.io/sync-period overrides it per object")
	fs.DurationVar(&o.cfg.SecretRefreshPeriod, "secret-refresh-period", 24*time.Hour, "how often secret outputs exported to Secrets (keys, with an ARM POST such as listKeys) are read from Azure again when nothing else asks for it (a change of the exports or the spec, a destination Secret missing or changed, the annotation aztenant.io/refresh-secrets); the annotation aztenant.io/secret-refresh-period overrides it per object")
	fs.StringVar(&o.driftChecks, "drift-checks", "list", "how an unchanged resource is compared with Azure each sync period: list (one list call per collection, such as the resources of a type in a resource group, compares all of them; what differs is read by GET) or get (one GET per resource)")
	fs.StringVar(&o.defaultPolicy, "default-reconcile-policy", string(reconcilers.PolicyManage), "reconcile policy of resources whose object and namespace set none: manage, observe, skip or detach-on-delete")
	fs.IntVar(&o.cfg.Workers, "workers", 4, "concurrent reconciles per kind")
	fs.Var(&o.cfg.Served, "served-namespaces", "which namespaces the operator serves: tenants (those selected by some Tenant), all, or a comma-separated list")
	fs.StringVar(&o.otlpEndpoint, "otlp-endpoint", "", "host:port of an OTLP/gRPC collector to send traces to; empty disables tracing")
	fs.BoolVar(&o.otlpInsecure, "otlp-insecure", false, "send traces without TLS")
	fs.StringSliceVar(&o.policyConstraints, "policy-constraints", nil, "files or folders of Gatekeeper constraints of the aztenant policy library to enforce in the operator before any ARM call (a cluster without Gatekeeper is protected too)")
	fs.StringVar(&o.platformIdentity, "platform-identity", "", "namespace/name of the Identity (in the operator's namespace) that onboards Tenants with spec.onboarding; its principal needs Contributor and User Access Administrator on the subscriptions; empty disables onboarding")
	fs.StringVar(&o.platformSpec.ClientID, "platform-identity-client-id", "", "with --platform-identity: create that Identity (or keep its spec) with this client ID, for --platform-identity-service-account (the Helm chart sets these; otherwise create the Identity yourself)")
	fs.StringVar(&o.platformSpec.TenantID, "platform-identity-tenant-id", "", "with --platform-identity-client-id: the Entra tenant ID")
	fs.StringVar(&o.platformSpec.SubscriptionID, "platform-identity-subscription-id", "", "with --platform-identity-client-id: the subscription onboarding works in")
	fs.StringVar(&o.platformSpec.ServiceAccountName, "platform-identity-service-account", "", "with --platform-identity-client-id: the ServiceAccount of the operator's namespace federated with the platform identity (usually the operator's own)")
	fs.StringVar(&o.cfg.OIDCIssuerURL, "oidc-issuer-url", "", "the cluster's service-account issuer URL for onboarding's federated credentials (AKS: az aks show --query oidcIssuerProfile.issuerUrl); empty reads it from the API server's /.well-known/openid-configuration")
	fs.BoolVar(&o.cfg.AllowUnreservedServiceAccounts, "insecure-allow-unreserved-service-accounts", false, "exchange Identities whose ServiceAccount is not the reserved aztenant-provisioner; anyone who may create pods or tokens in such a namespace can then act as its Azure identity without the operator, its Tenant bounds or its policy")
	fs.BoolVar(&o.cfg.SkipDefaultIdentityRules, "insecure-skip-default-identity-rules", false, "do not enforce the built-in identity rules (federated credentials only for ServiceAccounts of their own namespace, this cluster's issuer and audience api://AzureADTokenExchange; no privileged role assignments); tenants could then trust foreign subjects or grant themselves access")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug (also every reconcile that changes nothing and every token served from cache), info (one line per decision: create, update, adopt, deny, delete, detach, token exchange) or error; overrides --zap-log-level")
	fs.StringVar(&o.crdPattern, "crd-pattern", "*", "which Azure kinds this operator installs (with --crd-management=auto) and serves: glob patterns separated by ';', each matching a kind's group/Kind (storage.aztenant.io/StorageAccount), CRD name or group, case-insensitive; the identity, tenancy and plan CRDs always are")
	fs.StringVar(&o.crdManagement, "crd-management", "auto", "auto: apply the selected CRDs at start (create, upgrade; never delete); none: use the CRDs installed out of band")
	o.cloud.Bind(fs)
	zopts := zap.Options{}
	zfs := flag.NewFlagSet("zap", flag.ExitOnError)
	zopts.BindFlags(zfs)
	fs.AddGoFlagSet(zfs)
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
	case "none":
	default:
		return fmt.Errorf("--crd-management %q: want auto or none", o.crdManagement)
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
