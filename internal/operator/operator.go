package operator

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/controllers"
	"github.com/aztenant/aztenant/reconcilers/expressions"
	"github.com/aztenant/aztenant/reconcilers/kinds"
	"github.com/aztenant/aztenant/reconcilers/planning"
	"github.com/aztenant/aztenant/tenancy"
	"github.com/aztenant/aztenant/tenancy/armlimit"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// Config is the operator's behaviour, set from flags.
type Config struct {
	Cloud          identity.Cloud
	TokenExpiry    time.Duration
	IdentityResync time.Duration
	Served         tenancy.ServeMode
	// Settings are the reconciles' (sync period, drift checks, default
	// reconcile policy, polling, workers), passed to every kind's Reconciler.
	reconcilers.Settings
	// PolicyConstraints, when set, are Gatekeeper constraints (and extra
	// ConstraintTemplates) of the policy library the operator enforces itself
	// before any ARM call.
	PolicyConstraints []*unstructured.Unstructured
	// PlatformIdentity is the Identity (in the operator's namespace) that
	// onboards Tenants with spec.onboarding; empty disables onboarding.
	PlatformIdentity types.NamespacedName
	// OIDCIssuerURL is the cluster's service-account issuer for onboarding's
	// federated credentials; empty reads it from the API server's discovery.
	OIDCIssuerURL string
	// AllowUnreservedServiceAccounts lets Identities name ServiceAccounts
	// other than the reserved provisioner account, which anyone who may
	// create pods or tokens in their namespace can use around the operator.
	AllowUnreservedServiceAccounts bool
	// SkipDefaultIdentityRules turns off the identity rules the operator
	// enforces with no configuration (policy.DefaultConstraints).
	SkipDefaultIdentityRules bool
	// ClusterID identifies this cluster in the owner marker (tag
	// aztenant.io/owner) of the Azure resources it creates or adopts; empty
	// reads the kube-system namespace's UID once at start.
	ClusterID string
	// Kinds, when set, narrows the kinds served to those it selects (the
	// operator's --crd-pattern); nil serves every kind whose CRD is
	// installed.
	Kinds *crdinstall.Pattern
	// ActivateKinds is --crd-management=tenants: a kind Kinds offers is
	// installed once some Tenant names it, and removed when none has for
	// KindsUnnamed and no object of it remains (crdinstall.Activator).
	ActivateKinds bool
	KindsUnnamed  time.Duration
	// KindsRecheck is how often a kind no Tenant names, whose objects
	// remain, is looked at again (a minute when zero).
	KindsRecheck time.Duration
	// Owns, when set (--shards), says whether this replica may act on a
	// namespace's objects now; the reconcilers skip the others (defence in
	// depth: the cache holds only the replica's shards already).
	Owns func(namespace string) bool
	// SkipClusterControllers leaves out the Tenant status controller, which
	// one replica runs (the holder of shard 0).
	SkipClusterControllers bool
	// Replica, when set, is added to the User-Agent of every ARM call
	// (aztenant-replica/<Replica>), so that Azure's logs tell replicas apart.
	Replica string
}

// ClusterID returns cfg.ClusterID or, when empty, the UID of the
// kube-system namespace, which lives as long as the cluster.
func ClusterID(ctx context.Context, r client.Reader, cfg Config) (string, error) {
	if cfg.ClusterID != "" {
		return cfg.ClusterID, nil
	}
	var ns corev1.Namespace
	if err := r.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, &ns); err != nil {
		return "", fmt.Errorf("cluster identity for owner markers: read namespace %s: %w", metav1.NamespaceSystem, err)
	}
	return string(ns.UID), nil
}

// Parts are the wired components, for tests to inspect.
type Parts struct {
	Broker    *identity.Broker
	Tokens    *identity.TokenCache
	Directory *tenancy.Directory
	// Kinds serves the kinds whose CRD is installed.
	Kinds *controllers.KindServer
}

// Scheme knows Kubernetes' built-in types and every aztenant API group.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	// The operator applies its CRDs (crdinstall) and reads them.
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, api.AddToScheme(s)
}

// CacheOptions limits the manager's cache to the served namespaces (when they
// are a list) and drops managedFields, which nothing here reads.
func CacheOptions(served tenancy.ServeMode) cache.Options {
	o := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	if list := served.Namespaces(); len(list) > 0 {
		o.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range list {
			o.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return o
}

// Setup registers every controller with mgr.
func Setup(ctx context.Context, mgr ctrl.Manager, cfg Config) (*Parts, error) {
	azOpts, err := cfg.Cloud.ClientOptions()
	if err != nil {
		return nil, err
	}
	if cfg.TokenExpiry == 0 {
		cfg.TokenExpiry = time.Hour
	}
	cfg.Settings = cfg.Settings.WithDefaults()
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: mgr.GetClient()}, cfg.TokenExpiry)
	limits := armlimit.New(armlimit.DefaultOptions())
	armPolicies := []azpolicy.Policy{reconcilers.ARMTelemetryPolicy()}
	if cfg.Replica != "" {
		armPolicies = append(armPolicies, replicaAgent("aztenant-replica/"+cfg.Replica))
	}
	creds := identity.NewCredentials(tokens, azOpts).
		WithARMPolicies(armPolicies...).
		WithPerIdentityARMPolicy(limits.Policy)
	broker := identity.NewBroker(mgr.GetClient(), creds).AllowUnreservedServiceAccounts(cfg.AllowUnreservedServiceAccounts)
	if err := broker.CacheResolutions(ctx, mgr.GetCache()); err != nil {
		return nil, err
	}
	registry, err := reconcilers.NewRegistry(mgr.GetScheme(), kinds.All()...)
	if err != nil {
		return nil, err
	}
	if err := (&identity.Controller{
		Client: mgr.GetClient(), Broker: broker, Cloud: cfg.Cloud,
		Recorder: mgr.GetEventRecorder("aztenant-identity"), Resync: cfg.IdentityResync,
		InUse: registry.InUse(mgr.GetClient()), Platform: cfg.PlatformIdentity,
	}).SetupWithManager(mgr); err != nil {
		return nil, err
	}

	dir := tenancy.NewDirectory(mgr.GetClient(), cfg.Served)
	if err := dir.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if !cfg.SkipClusterControllers {
		if err := (&tenancy.TenantReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
			return nil, err
		}
	}
	if cfg.ActivateKinds && !cfg.SkipClusterControllers {
		direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
		if err != nil {
			return nil, err
		}
		offered := crdinstall.Pattern{}
		if cfg.Kinds != nil {
			offered = *cfg.Kinds
		}
		if err := (&crdinstall.Activator{
			Client: mgr.GetClient(), Direct: direct, Offered: offered, Names: tenancy.KindsName,
			Recorder: mgr.GetEventRecorder("aztenant"), Unnamed: cfg.KindsUnnamed, Recheck: cfg.KindsRecheck,
		}).SetupWithManager(mgr); err != nil {
			return nil, err
		}
	}
	issuer := onboarding.StaticIssuer(cfg.OIDCIssuerURL)
	if cfg.OIDCIssuerURL == "" {
		if issuer, err = onboarding.IssuerFromAPIServer(mgr.GetConfig()); err != nil {
			return nil, err
		}
	}
	// Onboarding's ARM calls keep the tracing and metrics policy but not the
	// per-identity budget: they are few, and must not wait behind a tenant's.
	onboardOpts := azOpts
	onboardOpts.PerRetryPolicies = append(append([]azpolicy.Policy(nil), azOpts.PerRetryPolicies...), reconcilers.ARMTelemetryPolicy())
	clusterID, err := ClusterID(ctx, mgr.GetAPIReader(), cfg)
	if err != nil {
		return nil, err
	}
	rgGVK := resourcesv1alpha1.GroupVersion.WithKind(resourcesv1alpha1.ResourceGroupGroupKind.Kind)
	_, rgErr := mgr.GetRESTMapper().RESTMapping(rgGVK.GroupKind(), rgGVK.Version)
	if !cfg.SkipClusterControllers {
		if err := (&onboarding.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Directory: dir, Credentials: creds,
			ARMOptions: &arm.ClientOptions{ClientOptions: onboardOpts, DisableRPRegistration: true},
			Platform:   cfg.PlatformIdentity, Issuer: issuer, Recorder: mgr.GetEventRecorder("aztenant-onboarding"),
			Resync: cfg.SyncPeriod, InUse: registry.InUse(mgr.GetClient()),
			RequestedGroups: rgErr == nil, ClusterID: clusterID,
		}).SetupWithManager(mgr); err != nil {
			return nil, err
		}
	}

	tenantGuard := tenancy.NewGuard(dir)
	guards := []reconcilers.Guard{tenantGuard}
	constraints := cfg.PolicyConstraints
	if !cfg.SkipDefaultIdentityRules {
		// Secure by default: federation and role rules hold with no
		// configuration, with this cluster's issuer.
		iss, err := issuer(ctx)
		if err != nil {
			return nil, fmt.Errorf("default identity rules need the cluster's issuer (set --oidc-issuer-url): %w", err)
		}
		defaults, err := policy.DefaultConstraints(iss)
		if err != nil {
			return nil, err
		}
		constraints = append(defaults, constraints...)
	}
	if len(constraints) > 0 {
		pg, err := policy.NewGuard(ctx, mgr.GetClient(), mgr.GetScheme(), constraints, policy.EngineDefault)
		if err != nil {
			return nil, fmt.Errorf("policy constraints: %w", err)
		}
		guards = append(guards, pg)
	}
	exprs, err := expressions.New(expressions.Options{})
	if err != nil {
		return nil, err
	}
	newReconciler := func(k reconcilers.Kind) *reconcilers.Reconciler {
		return &reconcilers.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Kind: k, Registry: registry, Broker: broker, ClusterID: clusterID,
			Guards: guards, ReferenceGuard: tenantGuard, NameGuard: tenantGuard, Expressions: exprs,
			Recorder: mgr.GetEventRecorder("aztenant"), Settings: cfg.Settings, Owns: cfg.Owns,
		}
	}
	// The chart may install only some kinds' CRDs (crds.pattern): serve
	// those installed now, and each one installed later, without restart.
	kindServer := &controllers.KindServer{
		Manager: mgr, Registry: registry, Recorder: mgr.GetEventRecorder("aztenant"),
		Options: controllers.Options{NewQueue: dir.NewQueue, AdmissionChanges: dir.Index().Subscribe},
		New:     newReconciler,
	}
	if cfg.Kinds != nil {
		kindServer.Selected = cfg.Kinds.Selects
	}
	if err := kindServer.ServeInstalled(ctx); err != nil {
		return nil, err
	}
	if err := kindServer.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	// Plans (aztenant plan), where their CRD is installed, for the kinds served.
	if _, err := mgr.GetRESTMapper().RESTMapping(planv1alpha1.GroupVersion.WithKind("Plan").GroupKind(), planv1alpha1.GroupVersion.Version); err == nil {
		if err := (&planning.Planner{Client: mgr.GetClient(), Registry: registry, Served: registry.Served, New: newReconciler}).SetupWithManager(mgr); err != nil {
			return nil, err
		}
	} else if !meta.IsNoMatchError(err) {
		return nil, err
	}
	return &Parts{Broker: broker, Tokens: tokens, Directory: dir, Kinds: kindServer}, nil
}

// InstallCRDs applies the embedded CRDs that p selects (crdinstall) and
// waits until the API server has established each, so that the kinds are
// served as Setup starts. c must not be cached.
func InstallCRDs(ctx context.Context, c client.Client, p crdinstall.Pattern, timeout time.Duration) (crdinstall.Result, error) {
	selected, err := api.CRDsOf(p.Selects)
	if err != nil {
		return crdinstall.Result{}, err
	}
	res, err := crdinstall.Installer{Client: c}.Install(ctx, selected)
	if err != nil {
		return res, err
	}
	names := make([]string, len(selected))
	for i, crd := range selected {
		names[i] = crd.Name
	}
	return res, crdinstall.WaitEstablished(ctx, c, names, timeout)
}
