package testenv

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/lab/seed"
)

// Env is the control plane of one test package, with a client that knows the
// project's types.
type Env struct {
	*controlplane.ControlPlane
	Scheme *runtime.Scheme
	Client client.Client
}

var (
	env      *Env
	startErr error
)

// OperatorNamespace holds the reservation policies' parameters, as the
// chart's release namespace does.
const OperatorNamespace = seed.Namespace

// Option changes what Main sets up.
type Option func(*settings)

type settings struct {
	skipCRDs, skipReservation bool
	controllers               bool
	kinds                     *crdinstall.Pattern
	parallel                  int
}

// TestKinds are the Azure kinds whose CRDs a control plane has when its package names
// none (WithKinds), and those an operator started on it serves when its configuration
// names none (stacktest): the groups of the kinds tests create by hand. A platform
// installs the kinds it uses (crds.pattern), and so do the tests: each installed CRD
// costs the API server at every start (a package with all of them took 22 CPU-s where
// it took 13 with these, tenancy/onboarding, 2026-12-07), and each served kind is an
// informer and a controller started with every operator (serving all of them made a
// stack cost about four times the CPU of these, reconcilers/kinds, 2026-12-06).
var TestKinds = mustPattern("resources.aztenant.io;authorization.aztenant.io;managedidentity.aztenant.io;" +
	"storage.aztenant.io;cache.aztenant.io;containerservice.aztenant.io;dbforpostgresql.aztenant.io")

// EveryKind selects every kind: for the tests of every generated kind, and of what
// must hold for all of them.
var EveryKind = mustPattern("*")

// KindsAnd is TestKinds and the kinds patterns select (crdinstall patterns: group/Kind
// globs, CRD names, groups).
func KindsAnd(patterns ...string) *crdinstall.Pattern {
	return mustPattern(strings.Join(append([]string{TestKinds.String()}, patterns...), ";"))
}

func mustPattern(s string) *crdinstall.Pattern {
	p, err := crdinstall.ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return &p
}

// WithKinds installs the CRDs of the kinds p selects (and the core groups', always)
// instead of TestKinds'.
func WithKinds(p *crdinstall.Pattern) Option { return func(s *settings) { s.kinds = p } }

// WithoutReservation leaves out the admission policies that reserve the
// provisioner accounts for the operator, for tests that install them
// themselves (the Helm chart's).
// CRDWait bounds the wait for installed CRDs to be served (seed.CRDWait).
const CRDWait = seed.CRDWait

func WithoutReservation() Option { return func(s *settings) { s.skipReservation = true } }

// WithControllerManager also runs kube-controller-manager's lifecycle
// controllers (controlplane.ControllersLifecycle): garbage collection,
// namespace deletion, ClusterRole aggregation, token Secrets.
func WithControllerManager() Option { return func(s *settings) { s.controllers = true } }

// WithParallel runs up to n of the package's parallel tests (and subtests) at once,
// unless go test's -parallel says otherwise (its default is GOMAXPROCS). For a package
// whose tests spend most of their time waiting on Azure's operations and the
// operator's syncs, not on the CPU: with GOMAXPROCS at a time, on 2 cores, its tests
// waited in line while the cores were idle.
func WithParallel(n int) Option { return func(s *settings) { s.parallel = n } }

// WithoutCRDs leaves the CRDs out, for tests that install them themselves
// (the Helm chart's).
func WithoutCRDs() Option { return func(s *settings) { s.skipCRDs = true } }

// Main starts the control plane, installs the CRDs (TestKinds' unless WithKinds), runs the tests and stops the
// control plane. On SIGINT or SIGTERM it stops the control plane before exiting;
// if the test binary dies hard, the child processes die with it.
func Main(m *testing.M, opts ...Option) {
	if fuzzOnly() {
		// A fuzz worker, or a run that only fuzzes, needs no control plane:
		// starting one per worker would eat the whole fuzz time.
		os.Exit(m.Run())
	}
	// The tests' managers log through loggers of their own (stacktest.NewLogged), or
	// not at all; the global one is set so that controller-runtime does not print its
	// "log.SetLogger(...) was never called" stack trace into the test's output.
	ctrllog.SetLogger(logr.Discard())
	var s settings
	for _, o := range opts {
		o(&s)
	}
	if s.parallel > 0 && !flagGiven("test.parallel") {
		if err := flag.Set("test.parallel", strconv.Itoa(s.parallel)); err != nil {
			panic(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	env, startErr = start(ctx, s)
	cancel()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		if env != nil {
			env.Stop()
		}
		os.Exit(130)
	}()

	code := m.Run()
	if env != nil {
		env.Stop()
	}
	os.Exit(code)
}

// fuzzOnly reports whether this test binary runs only fuzz targets: a fuzz
// worker process, or -fuzz with -run '^$'.
// startWait bounds the start of a control plane (etcd, kube-apiserver and the CRDs
// Established): seconds on an idle machine; CI's five test binaries at once on 2 cores
// once took the kube-apiserver of a package with every CRD over 2 minutes. The wait ends
// as soon as it is ready, and at once if a process exits.
const startWait = 5 * time.Minute

// flagGiven says whether the command line set the flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func fuzzOnly() bool {
	flag.Parse()
	value := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return value("test.fuzzworker") == "true" || (value("test.fuzz") != "" && value("test.run") == "^$")
}

func start(ctx context.Context, s settings) (*Env, error) {
	content := seed.Content{Reservation: !s.skipReservation}
	if !s.skipCRDs {
		kinds := s.kinds
		if kinds == nil {
			kinds = TestKinds
		}
		var err error
		if content.CRDs, err = api.CRDsOf(kinds.Selects); err != nil {
			return nil, err
		}
	}
	// Memory is cheaper than CPU here: many control planes run at once on 2 cores
	// (GOGC 200: the kinds tests but the lifecycle took 76 CPU-s instead of 83, and
	// their largest process, the API server, grew to 1.9 GB; 3.3 GB at GOGC 400).
	opts := controlplane.Options{GOGC: 200}
	if s.controllers {
		opts.Controllers = controlplane.ControllersLifecycle
	}
	if !content.Empty() {
		bin, err := controlplane.FindBinDir("")
		if err != nil {
			return nil, err
		}
		if opts.EtcdSeed, err = seed.Dir(ctx, bin, content); err != nil {
			return nil, fmt.Errorf("control plane seed: %w", err)
		}
	}
	// Ports are picked free and then bound by the servers; another test
	// package starting at the same moment can take one in between. Retry.
	var cp *controlplane.ControlPlane
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if cp, err = controlplane.Start(ctx, opts); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	scheme, err := newScheme()
	if err != nil {
		cp.Stop()
		return nil, err
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		cp.Stop()
		return nil, err
	}
	if err := content.Served(ctx, cp.Config); err != nil {
		cp.Stop()
		return nil, err
	}
	return &Env{ControlPlane: cp, Scheme: scheme, Client: c}, nil
}

// newScheme knows Kubernetes' types, CRDs and the project's API.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, api.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// New starts a control plane of its own for one test, stopped when the test
// ends: for a test that must not share the package's (one that needs an API
// server no other test has configured).
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	ctx, cancel := context.WithTimeout(t.Context(), startWait)
	defer cancel()
	e, err := start(ctx, s)
	if err != nil {
		t.Fatalf("control plane did not start: %v", err)
	}
	t.Cleanup(func() { e.Stop() })
	return e
}

// Get returns the package's environment, failing the test if it did not start.
// Call it only from a package whose TestMain calls Main.
func Get(t testing.TB) *Env {
	t.Helper()
	if startErr != nil {
		t.Fatalf("control plane did not start: %v", startErr)
	}
	if env == nil {
		t.Fatal("testenv.Get needs TestMain to call testenv.Main")
	}
	return env
}
