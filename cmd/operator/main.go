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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/identity"
)

type options struct {
	metricsAddr, probeAddr string
	leaderElect            bool
	leaderElectionNS       string
	tokenExpiry            time.Duration
	identityResync         time.Duration
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
	o.cloud.Bind(fs)
	zopts := zap.Options{}
	zfs := flag.NewFlagSet("zap", flag.ExitOnError)
	zopts.BindFlags(zfs)
	fs.AddGoFlagSet(zfs)
	_ = fs.Parse(os.Args[1:])
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))

	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(o options) error {
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
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "aztenant-operator",
		LeaderElectionNamespace: o.leaderElectionNS,
		// Nothing here reads managedFields; dropping them roughly halves cache memory.
		Cache: cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
	})
	if err != nil {
		return err
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: mgr.GetClient()}, o.tokenExpiry)
	broker := identity.NewBroker(mgr.GetClient(), identity.NewCredentials(tokens, azOpts))
	if err := broker.CacheResolutions(context.Background(), mgr.GetCache()); err != nil {
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
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
