package identity

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// A ServiceAccount token from the real TokenRequest API is reused while it has
// more than a fifth of its life left and replaced before it expires, so Entra
// never sees an expired assertion. The cache's clock is moved instead of
// waiting (e2e/faults waits out a real token with FAULTS_FULL=1).
func TestTokenReplacedBeforeExpiry(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	ctx := t.Context()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tok-refresh"}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: "tok-refresh"}}); err != nil {
		t.Fatal(err)
	}
	c := NewTokenCache(APITokenRequester{Client: env.Client}, 10*time.Minute) // the API server's minimum
	clock := time.Now()
	c.now = func() time.Time { return clock }
	token := func() string {
		t.Helper()
		tok, err := c.Token(ctx, "tok-refresh", "azure", TokenAudience)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	first := token()
	clock = clock.Add(7 * time.Minute) // 3 minutes left: still fresh
	if token() != first || c.Requests() != 1 {
		t.Fatalf("a token with 3 of its 10 minutes left was replaced (%d requests)", c.Requests())
	}
	clock = clock.Add(90 * time.Second) // 1.5 minutes left: under a fifth
	if token() == first || c.Requests() != 2 {
		t.Fatalf("a token with 1.5 of its 10 minutes left was still presented (%d requests)", c.Requests())
	}
}
