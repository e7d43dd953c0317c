// Command operator is the aztenant manager: flags, wiring, run. It is the only
// place that knows every package.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
)

type options struct {
	metricsAddr, probeAddr string
	leaderElect            bool
	leaderElectionNS       string
	tokenExpiry            time.Duration
	identityResync         time.Duration
	served                 tenancy.ServeMode
	cloud                  identity.CloudFlags
}

func main() {
	var o options
	fs := pflag.NewFlagSet("operator", pflag.ExitOnError)
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 disables it")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader so only one replica reconciles")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "namespace of the leader-election lease (default: the pod's namespace)")
	fs.DurationVar(&o.tokenExpiry, "serviceaccount-token-expiry", time.Hour, "lifetime requested for ServiceAccount tokens exchanged with Entra ID (the API server's minimum is 10m)")
	fs.DurationVar(&o.identityResync, "identity-resync", 30*time.Minute, "how often a Ready Identity's federation is checked again")
	fs.Var(&o.served, "served-namespaces", "which namespaces the operator serves: tenants (those selected by some Tenant), all, or a comma-separated list")
	o.cloud.Bind(fs)
	zopts := zap.Options{}
	zfs := flag.NewFlagSet("zap", flag.ExitOnError)
	zopts.BindFlags(zfs)
	fs.AddGoFlagSet(zfs)
	_ = fs.Parse(os.Args[1:])
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))

	if err := run(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), o); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg *rest.Config, o options) error {
	if o.tokenExpiry < 10*time.Minute {
		return fmt.Errorf("--serviceaccount-token-expiry %s is below the API server's minimum of 10m", o.tokenExpiry)
	}
	cloud, err := o.cloud.Cloud()
	if err != nil {
		return err
	}
	azOpts, err := cloud.ClientOptions()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := api.AddToScheme(scheme); err != nil {
		return err
	}
	cacheOpts := cache.Options{
		// Nothing here reads managedFields; dropping them roughly halves cache memory.
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if list := o.served.Namespaces(); len(list) > 0 {
		// Namespaced kinds are watched only where they are served; cluster-scoped
		// ones (Tenants, Namespaces) are unaffected.
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range list {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "aztenant-operator",
		LeaderElectionNamespace: o.leaderElectionNS,
		Cache:                   cacheOpts,
	})
	if err != nil {
		return err
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: mgr.GetClient()}, o.tokenExpiry)
	broker := identity.NewBroker(mgr.GetClient(), identity.NewCredentials(tokens, azOpts))
	if err := broker.CacheResolutions(ctx, mgr.GetCache()); err != nil {
		return err
	}
	if err := (&identity.Controller{
		Client:   mgr.GetClient(),
		Broker:   broker,
		Cloud:    cloud,
		Recorder: mgr.GetEventRecorder("aztenant-identity"),
		Resync:   o.identityResync,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	dir := tenancy.NewDirectory(mgr.GetClient(), o.served)
	if err := dir.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&tenancy.TenantReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
