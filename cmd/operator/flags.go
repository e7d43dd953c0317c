package main

import (
	"flag"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/aztenant/aztenant/reconcilers"
)

// newFlagSet is the operator's flag set, bound to o and zopts (zap's own
// --zap-* flags). docs/operator-flags.md's table is generated from it
// (TestOperatorFlagsPage), so every flag defined here is documented there.
func newFlagSet(o *options, zopts *zap.Options, onError pflag.ErrorHandling) *pflag.FlagSet {
	fs := pflag.NewFlagSet("operator", onError)
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
	fs.StringVar(&o.crdManagement, "crd-management", "auto", "auto: apply the selected CRDs at start (create, upgrade; never delete); tenants: apply a selected kind's CRD once some Tenant's spec.kinds names it, and remove one no Tenant has named for --crd-unnamed-for when no object of its kind remains; none: use the CRDs installed out of band")
	fs.DurationVar(&o.cfg.KindsUnnamed, "crd-unnamed-for", 10*time.Minute, "with --crd-management=tenants: how long no Tenant names a kind before its CRD is removed (once no object of it remains)")
	o.cloud.Bind(fs)
	zfs := flag.NewFlagSet("zap", flag.ExitOnError)
	zopts.BindFlags(zfs)
	fs.AddGoFlagSet(zfs)
	return fs
}
