package reconcilers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// AuthorizationFailed is looked at again in seconds at first, then less and
// less often up to five minutes; any other outcome starts the count again.
func TestAuthorizationBackoffDoublesFromSeconds(t *testing.T) {
	var b authBackoff
	key := types.NamespacedName{Namespace: "ns", Name: "rg"}
	want := []time.Duration{5, 10, 20, 40, 80, 160, 300, 300}
	for i, w := range want {
		got := b.next(key)
		if lo, hi := w*time.Second, w*time.Second+w*time.Second/10+time.Nanosecond; got < lo || got > hi {
			t.Errorf("retry %d after %v, want %v (+10%% jitter)", i+1, got, lo)
		}
	}
	b.reset(key)
	if got := b.next(key); got > 6*time.Second {
		t.Errorf("after a reset the first retry is %v, want 5s again", got)
	}
	if got := b.next(types.NamespacedName{Namespace: "ns", Name: "other"}); got > 6*time.Second {
		t.Errorf("another object's first retry is %v: counts are per object", got)
	}
}
