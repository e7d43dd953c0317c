package testenv

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Eventually polls cond at once and then every 100ms until it reports done, and fails t
// when timeout passes first, naming what and the state cond last described. Tests wait
// for conditions this way instead of sleeping, so they hold on a loaded machine and end
// as soon as the condition does.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (done bool, state string)) {
	t.Helper()
	var last string
	// Not t.Context(): it is already done when a cleanup waits.
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		done, state := cond()
		last = state
		return done, nil
	})
	if err == nil {
		return
	}
	if last == "" {
		t.Fatalf("%s: not reached in %s", what, timeout)
	}
	t.Fatalf("%s: not reached in %s; last seen: %s", what, timeout, last)
}
