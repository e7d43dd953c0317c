package kinds_test

import (
	"strings"
	"testing"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// The lifecycle test's shards and the other tests wait on Azure's operations and syncs
// more than on the CPU: 4 run at once (go test's -parallel, if given, says otherwise).
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.WithKinds(testenv.EveryKind), testenv.WithParallel(4))
}

const (
	tenantID         = stacktest.TenantID
	subID            = stacktest.SubscriptionID
	platformClientID = stacktest.PlatformClientID
	platformSecret   = stacktest.PlatformSecret
)

// stack is the shared fixture (internal/testing/stacktest), with this package's own
// helpers as methods.
type stack struct{ *stacktest.Stack }

func newStack(t testing.TB, namespaces ...string) *stack {
	t.Helper()
	return &stack{stacktest.New(t, namespaces...)}
}

func newStackWith(t testing.TB, cfg operator.Config, namespaces ...string) *stack {
	t.Helper()
	return &stack{stacktest.NewWith(t, cfg, namespaces...)}
}

// newStackOf is newStack serving also the kinds patterns select (stacktest.TestKindsAnd;
// "*" for every kind).
func newStackOf(t testing.TB, patterns string, namespaces ...string) *stack {
	t.Helper()
	cfg := stacktest.DefaultConfig()
	cfg.Kinds = stacktest.TestKindsAnd(patterns)
	return newStackWith(t, cfg, namespaces...)
}

func methods(es []emulator.AuditEntry) string { return stacktest.Methods(es) }

// createdOnce: the calls are a create (GET, PUT) followed only by reads; a sync
// under load may read once more, never write.
func createdOnce(got string) bool {
	return strings.HasPrefix(got+" ", "GET PUT ") && strings.Count(got, "PUT") == 1
}

func until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	stacktest.Until(t, what, cond)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
