package expressions

import (
	"context"
	"errors"
	"testing"
	"time"
)

// FuzzCompileEval compiles and evaluates arbitrary text as both a secret and
// a configMap expression. It must never panic, never take long (the inputs
// are bounded by the Evaluator's limits), and fail only with typed errors.
func FuzzCompileEval(f *testing.F) {
	for _, seed := range []string{
		`self.metadata.name`,
		`"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key1`,
		`{"a": self.status.primaryEndpoints.blob}`,
		`has(self.status.x) ? self.status.x : "none"`,
		`self.spec.tags.map(k, k + "=" + self.spec.tags[k]).join(",")`,
		`self.?status.?x.orValue("")`,
		`self.spec.tags.transformMap(k, v, v.upperAscii())`,
		`"a".replace("", "bb").split("b").join("-").substring(1)`,
		`string(base64.decode(secret.key2))`,
		`self.status.id.find("[^/]+$")`,
		`[1,2,3].map(a, [1,2,3].map(b, a * b))`,
		`1 / 0`, `"x"[0]`, `{"a": 1}`, `secret`, `(((((`, "\x00", `"\xff"`,
	} {
		f.Add(seed)
	}
	e := MustNew(Options{CostLimit: 100_000, Timeout: 50 * time.Millisecond, CacheSize: 64})
	self := storageAccount()
	f.Fuzz(func(t *testing.T, expr string) {
		for _, secret := range []bool{true, false} {
			p, err := e.Compile(expr, secret)
			if err != nil {
				var ce *CompileError
				if !errors.As(err, &ce) {
					t.Fatalf("Compile(%q): %T %v", expr, err, err)
				}
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			start := time.Now()
			_, err = e.Eval(ctx, p, self, storageSecrets)
			cancel()
			if err != nil {
				var ee *EvalError
				if !errors.As(err, &ee) {
					t.Fatalf("Eval(%q): %T %v", expr, err, err)
				}
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("Eval(%q) took %v", expr, d)
			}
		}
	})
}
