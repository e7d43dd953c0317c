package faults_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/bench"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// One stack for the package: starting the control plane costs more than
// most tests. Each test uses namespaces of its own and clears its faults.
var (
	stack    *bench.Stack
	tracker  *bench.Tracker
	startErr error
	stackDir string
)

// Settings every test relies on:
//   - access tokens live 5m10s, so Azure SDK clients (which refresh 5 minutes
//     before expiry) exchange again after 10 s of use: Entra faults reach
//     the operator within seconds, as they would an hour into a real token;
//   - Identities are re-checked every 5 s;
//   - ServiceAccount tokens live the API server's minimum, 10 minutes.
const tokenLifetime = 5*time.Minute + 10*time.Second

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "aztenant-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stackDir = dir
	ctx, cancel := context.WithCancel(context.Background())
	stack, startErr = bench.Start(ctx, bench.Options{Dir: dir,
		Emulator: emulator.Config{AuditSize: 100000, TokenLifetime: emulator.Duration(tokenLifetime)},
		// Only the kinds the faults use are installed and served: every CRD costs the API
		// server, every kind served is an informer and a controller more in each replica.
		CRDPattern:   "resources.aztenant.io;storage.aztenant.io;managedidentity.aztenant.io",
		OperatorArgs: []string{"--identity-resync=5s", "--serviceaccount-token-expiry=10m", "--workers=4"}})
	if startErr == nil {
		tracker, startErr = bench.NewTracker(ctx, stack.CP.Config)
	}
	code := m.Run()
	cancel()
	if stack != nil {
		stack.Stop()
	}
	if code == 0 {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "logs of the processes kept in %s\n", dir)
	}
	os.Exit(code)
}

func getStack(t *testing.T) *bench.Stack {
	t.Helper()
	if startErr != nil {
		t.Fatalf("stack did not start: %v", startErr)
	}
	t.Cleanup(func() {
		if err := stack.Emulator.SetFaults(context.Background(), emulator.Faults{}); err != nil {
			t.Errorf("clear faults: %v", err)
		}
		if t.Failed() {
			t.Logf("operator log tail:\n%s", controlplane.Tail(stack.Operator.Log, 30))
		}
	})
	return stack
}

// full reports whether the long variants run (FAULTS_FULL=1).
func full() bool { return os.Getenv("FAULTS_FULL") == "1" }

func onboard(t *testing.T, s *bench.Stack, nss ...string) {
	t.Helper()
	if err := s.Onboard(t.Context(), nss...); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss {
		testenv.Eventually(t, time.Minute, "Identity of "+ns+" Ready", func() (bool, string) {
			c := identityReady(t, ns, "default")
			return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprint(c)
		})
	}
}

func identityReady(t *testing.T, ns, name string) *metav1.Condition {
	var id identityv1alpha1.Identity
	if err := tracker.Reader().Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &id); err != nil {
		return nil
	}
	return meta.FindStatusCondition(id.Status.Conditions, "Ready")
}

func readyCondition(o azurev1alpha1.Resource) *metav1.Condition {
	return meta.FindStatusCondition(o.AzureStatus().Conditions, "Ready")
}

// notReady lists the objects that are not Ready for their generation.
func notReady(t *testing.T, objs []azurev1alpha1.Resource) []string {
	var out []string
	for _, o := range objs {
		cur := o.DeepCopyObject().(azurev1alpha1.Resource)
		if err := tracker.Reader().Get(t.Context(), client.ObjectKeyFromObject(o), cur); err != nil {
			out = append(out, o.GetName()+": "+err.Error())
			continue
		}
		if !bench.IsReady(cur) {
			c := readyCondition(cur)
			desc := "no Ready condition"
			if c != nil {
				desc = fmt.Sprintf("%s/%s gen %d/%d: %s", c.Status, c.Reason, c.ObservedGeneration, cur.GetGeneration(), c.Message)
			}
			out = append(out, o.GetName()+": "+desc)
		}
	}
	return out
}

func waitAllReady(t *testing.T, timeout time.Duration, objs []azurev1alpha1.Resource) {
	t.Helper()
	testenv.Eventually(t, timeout, fmt.Sprintf("%d objects Ready", len(objs)), func() (bool, string) {
		nr := notReady(t, objs)
		if len(nr) > 3 {
			nr = append(nr[:3], fmt.Sprintf("... %d more", len(nr)-3))
		}
		return len(nr) == 0, strings.Join(nr, "; ")
	})
}

func create(t *testing.T, s *bench.Stack, objs ...client.Object) {
	t.Helper()
	if err := bench.CreateAll(t.Context(), s.Client, 8, objs); err != nil {
		t.Fatal(err)
	}
}

func armCalls(t *testing.T, s *bench.Stack, since uint64, ns string) []emulator.AuditEntry {
	t.Helper()
	es, err := s.Emulator.Audit(t.Context(), emulator.AuditFilter{Since: since, Service: "arm", ClientID: bench.ClientID(ns)})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func lastSeq(t *testing.T, s *bench.Stack) uint64 {
	t.Helper()
	seq, err := s.Emulator.LastSeq(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return seq
}
