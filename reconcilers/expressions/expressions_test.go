package expressions

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"
)

func storageAccount() map[string]any {
	return map[string]any{
		"apiVersion": "storage.azure.aztenant.io/v1alpha1",
		"kind":       "StorageAccount",
		"metadata": map[string]any{
			"name":      "photos",
			"namespace": "team-a",
			"labels":    map[string]any{"app": "web"},
		},
		"spec": map[string]any{
			"azureName": "teamaphotos",
			"location":  "westeurope",
			"owner":     map[string]any{"name": "rg"},
			"tags":      map[string]any{"env": "prod", "team": "a"},
			"replicas":  int64(3),
		},
		"status": map[string]any{
			"id":                "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/teamaphotos",
			"provisioningState": "Succeeded",
			"primaryEndpoints": map[string]any{
				"blob":  "https://teamaphotos.blob.core.windows.net/",
				"queue": "https://teamaphotos.queue.core.windows.net/",
			},
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "True"},
			},
		},
	}
}

var storageSecrets = map[string]string{"key1": "a2V5MQ==", "key2": "a2V5Mg=="}

func newEvaluator(t testing.TB, opts Options) *Evaluator {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEvalCommonExpressions(t *testing.T) {
	e := newEvaluator(t, Options{})
	tests := []struct {
		name    string
		expr    string
		secret  bool
		want    string
		wantMap map[string]string
	}{
		{name: "field", expr: `self.status.primaryEndpoints.blob`, want: "https://teamaphotos.blob.core.windows.net/"},
		{name: "concatenation", expr: `"endpoint=" + self.status.primaryEndpoints.blob + "photos"`, want: "endpoint=https://teamaphotos.blob.core.windows.net/photos"},
		{name: "connection string", secret: true,
			expr: `"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key1 + ";EndpointSuffix=core.windows.net"`,
			want: "DefaultEndpointsProtocol=https;AccountName=teamaphotos;AccountKey=a2V5MQ==;EndpointSuffix=core.windows.net"},
		{name: "metadata name", expr: `self.metadata.name`, want: "photos"},
		{name: "namespace and name", expr: `self.metadata.namespace + "/" + self.metadata.name`, want: "team-a/photos"},
		{name: "has present", expr: `has(self.status.primaryEndpoints) ? self.status.primaryEndpoints.queue : "none"`, want: "https://teamaphotos.queue.core.windows.net/"},
		{name: "has absent", expr: `has(self.status.secondaryEndpoints) ? self.status.secondaryEndpoints.blob : "none"`, want: "none"},
		{name: "optional chain", expr: `self.?status.?secondaryEndpoints.?blob.orValue("none")`, want: "none"},
		{name: "int to string", expr: `string(self.spec.replicas)`, want: "3"},
		{name: "condition lookup", expr: `self.status.conditions.exists(c, c.type == "Ready" && c.status == "True") ? "ready" : "not ready"`, want: "ready"},
		{name: "join tags", expr: `self.spec.tags.map(k, k + "=" + self.spec.tags[k]).join(",")`},
		{name: "string functions", expr: `self.spec.location.upperAscii() + "-" + self.status.primaryEndpoints.blob.replace("https://", "").split(".")[0]`, want: "WESTEUROPE-teamaphotos"},
		{name: "regex", expr: `self.status.id.matches("^/subscriptions/") ? "arm" : "other"`, want: "arm"},
		{name: "find", expr: `self.status.id.find("[^/]+$")`, want: "teamaphotos"},
		{name: "base64", secret: true, expr: `string(base64.decode(secret.key2))`, want: "key2"},
		{name: "substring", expr: `self.spec.azureName.substring(0, 5)`, want: "teama"},
		{name: "map literal", expr: `{"blob": self.status.primaryEndpoints.blob, "name": self.spec.azureName}`,
			wantMap: map[string]string{"blob": "https://teamaphotos.blob.core.windows.net/", "name": "teamaphotos"}},
		{name: "secret map", secret: true, expr: `{"AZURE_STORAGE_KEY": secret.key1, "AZURE_STORAGE_ACCOUNT": self.spec.azureName}`,
			wantMap: map[string]string{"AZURE_STORAGE_KEY": "a2V5MQ==", "AZURE_STORAGE_ACCOUNT": "teamaphotos"}},
		{name: "whole secret", secret: true, expr: `secret`, wantMap: storageSecrets},
		{name: "tags as map", expr: `self.spec.tags`, wantMap: map[string]string{"env": "prod", "team": "a"}},
		{name: "transformMap", expr: `self.spec.tags.transformMap(k, v, k + ":" + v)`, wantMap: map[string]string{"env": "env:prod", "team": "team:a"}},
		{name: "empty map", expr: `{}`, wantMap: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := e.Compile(tt.expr, tt.secret)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			got, err := e.Eval(context.Background(), p, storageAccount(), storageSecrets)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if tt.name == "join tags" { // map order is not defined
				if got.String != "env=prod,team=a" && got.String != "team=a,env=prod" {
					t.Fatalf("got %q", got.String)
				}
				return
			}
			if tt.wantMap != nil {
				if !got.IsMap() || !maps.Equal(got.Map, tt.wantMap) {
					t.Fatalf("got %#v, want map %v", got, tt.wantMap)
				}
				return
			}
			if got.IsMap() || got.String != tt.want {
				t.Fatalf("got %#v, want %q", got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	e := newEvaluator(t, Options{})
	const ten = "[0,1,2,3,4,5,6,7,8,9]"
	tests := []struct {
		name      string
		expr      string
		secret    bool
		want      string // substring of Error()
		exact     string // whole Error(), when set
		line, col int
	}{
		{name: "typo", expr: `"x" + self.a + secrt.key1`, secret: true,
			exact: "ERROR: <input>:1:16: undeclared reference to 'secrt'", line: 1, col: 16},
		{name: "secret in configMap", expr: `secret`,
			exact: "ERROR: <input>:1:1: configMap expressions cannot read `secret`: secret outputs may only be written to Secrets (use secretExpressions)", line: 1, col: 1},
		{name: "secret field in configMap", expr: `"AccountKey=" + secret.key1`, want: "configMap expressions cannot read `secret`", line: 1, col: 17},
		{name: "secret in configMap comprehension", expr: `["a"].map(x, secret.key1).join(",")`, want: "configMap expressions cannot read `secret`"},
		{name: "syntax", expr: `self.metadata.name +`, want: "ERROR: <input>:1:21: Syntax error", line: 1, col: 21},
		{name: "second line", expr: "self.metadata.name +\n  nme", want: "ERROR: <input>:2:3: undeclared reference to 'nme'", line: 2, col: 3},
		{name: "int", expr: `1 + 2`, exact: "expression must return a string or a map(string, string), but it returns int (convert it with string(...))"},
		{name: "bool", expr: `has(self.status)`, want: "but it returns bool"},
		{name: "list", expr: `["a", self.metadata.name]`, want: "but it returns list(dyn)"},
		{name: "map of int", expr: `{"a": 1}`, want: "but it returns map(string, int)"},
		{name: "no repeat function", expr: `"x".repeat(1000000)`, want: "undeclared reference to 'repeat'"},
		{name: "no format function", expr: `"%s".format([self.metadata.name])`, want: "undeclared reference to 'format'"},
		{name: "no I/O", expr: `readSecret("other").key`, want: "undeclared reference to 'readSecret'"},
		{name: "empty", expr: `  `, exact: "expression is empty"},
		{name: "too long", expr: `"` + strings.Repeat("a", 5000) + `"`, want: "expression is 5002 characters long, more than the limit of 4096"},
		{name: "bad regex", expr: `self.metadata.name.matches("[") ? "a" : "b"`, want: "invalid matches argument"},
		{name: "certain blowup on literals", want: "expression costs at least",
			expr: ten + ".map(a, " + ten + ".map(b, " + ten + ".map(c, " + ten + ".map(d, " + ten + ".map(f, " + ten + ".map(g, 'x')))))).size() > 0 ? 'y' : 'n'"},
		{name: "nested comprehension over the resource", want: "estimated worst-case cost",
			expr: `self.spec.items.all(a, self.spec.items.all(b, a != b)) ? "y" : "n"`},
		{name: "quadratic string building", want: "estimated worst-case cost",
			expr: `self.spec.items.map(a, self.spec.items.map(b, a + b).join(",")).join(";")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Compile(tt.expr, tt.secret)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (%T), want *CompileError", err, err)
			}
			if tt.exact != "" && err.Error() != tt.exact {
				t.Fatalf("got  %q\nwant %q", err.Error(), tt.exact)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %q, want it to contain %q", err.Error(), tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("message spans lines: %q", err.Error())
			}
			if tt.line != 0 && (ce.Line != tt.line || ce.Column != tt.col) {
				t.Fatalf("position %d:%d, want %d:%d", ce.Line, ce.Column, tt.line, tt.col)
			}
			if len(ce.Expression) > maxQuotedExpression+3 {
				t.Fatalf("expression not truncated: %d bytes", len(ce.Expression))
			}
		})
	}
}

// The same expression is fine for a Secret, refused for a ConfigMap: a
// configMap program can never see secret outputs.
func TestSecretOnlyInSecretExpressions(t *testing.T) {
	e := newEvaluator(t, Options{})
	const expr = `{"key": secret.key1}`
	if _, err := e.Compile(expr, true); err != nil {
		t.Fatalf("secret expression: %v", err)
	}
	_, err := e.Compile(expr, false)
	if err == nil || !strings.Contains(err.Error(), "configMap expressions cannot read `secret`") {
		t.Fatalf("configMap expression: got %v", err)
	}
	// A configMap program ignores a secret map passed by mistake: `self`
	// is the only name it resolves.
	p, err := e.Compile(`self.metadata.name`, false)
	if err != nil {
		t.Fatal(err)
	}
	act := &activation{self: storageAccount(), secret: storageSecrets, withSecret: p.Secret()}
	if _, ok := act.ResolveName("secret"); ok {
		t.Fatal("configMap activation resolves secret")
	}
}

func TestEvalErrors(t *testing.T) {
	e := newEvaluator(t, Options{})
	tests := []struct {
		name   string
		expr   string
		secret bool
		reason EvalReason
		want   string
	}{
		{name: "missing secret key", expr: `"k=" + secret.key3`, secret: true, reason: ReasonRuntime, want: "no such key: key3"},
		{name: "missing field", expr: `self.status.secondaryEndpoints.blob`, reason: ReasonRuntime, want: "no such key: secondaryEndpoints"},
		{name: "dyn list", expr: `self.status.conditions`, reason: ReasonResultType, want: "expression must return a string or a map(string, string), got list"},
		{name: "dyn int", expr: `self.spec.replicas`, reason: ReasonResultType, want: "got int"},
		{name: "map with int value", expr: `self.spec.owner.transformMap(k, v, self.spec.replicas)`, reason: ReasonResultType, want: `map value for key "name" must be a string, got int`},
		{name: "map with map value", expr: `self.status`, reason: ReasonResultType, want: "must be a string, got"},
		{name: "division by zero", expr: `string(1 / (self.spec.replicas - 3))`, reason: ReasonRuntime, want: "division by zero"},
		{name: "replace blowup", expr: `self.metadata.name.replace("", "` + strings.Repeat("x", 2000) + `").replace("x", "` + strings.Repeat("y", 2000) + `")`, reason: ReasonRuntime, want: "replace would build a string of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := e.Compile(tt.expr, tt.secret)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			_, err = e.Eval(context.Background(), p, storageAccount(), storageSecrets)
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("got %v (%T), want *EvalError", err, err)
			}
			if ee.Reason != tt.reason || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %s %q, want %s containing %q", ee.Reason, err.Error(), tt.reason, tt.want)
			}
		})
	}
}

func bigList(n, width int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = fmt.Sprintf("item-%0*d", width, i)
	}
	return l
}

// Linear expressions pass the compile-time estimate and are stopped by the
// runtime cost limit on a large input, quickly.
func TestRuntimeCostLimit(t *testing.T) {
	// A long timeout, so that the cost limit is what stops (under -race too).
	e := newEvaluator(t, Options{Timeout: time.Minute})
	self := storageAccount()
	// 2,000 strings of 10 kB: every iteration costs about 1,000 per
	// character traversal of 10 kB, so the limit is reached within a few
	// hundred iterations.
	self["spec"].(map[string]any)["items"] = bigList(2_000, 10_000)
	self["spec"].(map[string]any)["big"] = strings.Repeat("b", 1<<20)
	for _, expr := range []string{
		`self.spec.items.map(a, a + a + a + a).join(",")`,
		`self.spec.items.exists(a, a.matches("^x.*y$")) ? "y" : "n"`,
		`self.spec.items.map(a, a.upperAscii()).join("")`,
		`self.spec.items.map(a, a.replace("0", "00")).size() > 0 ? "y" : "n"`,
		// Concatenating dyn values read from self is priced by size too.
		`self.spec.big + self.spec.big + self.spec.big + self.spec.big + self.spec.big + self.spec.big + self.spec.big + self.spec.big`,
	} {
		p, err := e.Compile(expr, false)
		if err != nil {
			t.Fatalf("%s: Compile: %v", expr, err)
		}
		start := time.Now()
		_, err = e.Eval(context.Background(), p, self, nil)
		var ee *EvalError
		if !errors.As(err, &ee) || ee.Reason != ReasonCostLimit {
			t.Fatalf("%s: got %v, want a cost limit error", expr, err)
		}
		if want := "evaluation exceeded the cost limit of 1000000"; !strings.Contains(err.Error(), want) {
			t.Fatalf("got %q", err.Error())
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%s: took %v", expr, d)
		}
	}
	// The same expression on a small resource is fine.
	p, _ := e.Compile(`self.spec.items.map(a, a + a + a + a).join(",")`, false)
	self["spec"].(map[string]any)["items"] = bigList(100, 5)
	if _, err := e.Eval(context.Background(), p, self, nil); err != nil {
		t.Fatal(err)
	}
}

// The cost tracker of cel-go v0.30.0 takes time quadratic in the number of
// comprehension iterations (its value stack grows by one per iteration and
// is searched linearly), so a cheap-per-iteration expression over a long
// list stays under the cost limit for seconds: the timeout stops it.
func TestTimeoutBoundsManyCheapIterations(t *testing.T) {
	e := newEvaluator(t, Options{Timeout: 100 * time.Millisecond})
	self := storageAccount()
	self["spec"].(map[string]any)["items"] = bigList(150_000, 1)
	p, err := e.Compile(`self.spec.items.exists(a, a == "nope") ? "y" : "n"`, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = e.Eval(context.Background(), p, self, nil)
	var ee *EvalError
	if !errors.As(err, &ee) || (ee.Reason != ReasonTimeout && ee.Reason != ReasonCostLimit) {
		t.Fatalf("got %v, want a timeout or cost error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

// With the compile-time estimate and the cost limit both disabled, the
// context still stops a quadratic expression.
func TestTimeout(t *testing.T) {
	e := newEvaluator(t, Options{CostLimit: ^uint64(0), MaxEstimatedCost: ^uint64(0), Timeout: 50 * time.Millisecond})
	self := storageAccount()
	self["spec"].(map[string]any)["items"] = bigList(20_000, 5) // 4e8 iterations
	p, err := e.Compile(`self.spec.items.all(a, self.spec.items.exists(b, b == a + "x")) ? "y" : "n"`, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"default timeout", "caller deadline"} {
		ctx := context.Background()
		if name == "caller deadline" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancel()
		}
		start := time.Now()
		_, err = e.Eval(ctx, p, self, nil)
		var ee *EvalError
		if !errors.As(err, &ee) || ee.Reason != ReasonTimeout || err.Error() != "evaluation timed out" {
			t.Fatalf("%s: got %v, want a timeout", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%s: took %v", name, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Eval(ctx, p, self, nil)
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Reason != ReasonTimeout || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}

func TestCacheCompilesOnce(t *testing.T) {
	e := newEvaluator(t, Options{CacheSize: 3})
	const expr = `self.metadata.name + "-x"`
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			p, err := e.Compile(expr, false)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := e.Eval(context.Background(), p, storageAccount(), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if s := e.Stats(); s.Compiles != 1 || s.Hits != 49 || s.Entries != 1 {
		t.Fatalf("stats %+v, want 1 compile and 49 hits", s)
	}
	// The secret flag is part of the key.
	if _, err := e.Compile(expr, true); err != nil {
		t.Fatal(err)
	}
	// Errors are cached too.
	for range 3 {
		if _, err := e.Compile(`secrt`, true); err == nil {
			t.Fatal("want an error")
		}
	}
	if s := e.Stats(); s.Compiles != 3 || s.Entries != 3 {
		t.Fatalf("stats %+v, want 3 compiles", s)
	}
	// Over capacity, the least recently used goes: touch expr, add one more,
	// and the secret variant (oldest) is evicted.
	if _, err := e.Compile(expr, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Compile(`"new"`, false); err != nil {
		t.Fatal(err)
	}
	before := e.Stats()
	if before.Evictions != 1 || before.Entries != 3 {
		t.Fatalf("stats %+v, want 1 eviction", before)
	}
	if _, err := e.Compile(expr, false); err != nil { // still cached
		t.Fatal(err)
	}
	if _, err := e.Compile(expr, true); err != nil { // recompiled
		t.Fatal(err)
	}
	if got := e.Stats().Compiles - before.Compiles; got != 1 {
		t.Fatalf("%d compiles after eviction, want 1", got)
	}
	// Expressions over the length limit are refused without touching the cache.
	if _, err := e.Compile(strings.Repeat(" ", 5000), false); err == nil {
		t.Fatal("want an error")
	}
	if s := e.Stats(); s.Compiles != before.Compiles+1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestConcurrentCompileEval(t *testing.T) {
	e := newEvaluator(t, Options{CacheSize: 8})
	exprs := []string{
		`self.metadata.name`,
		`"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key1`,
		`{"blob": self.status.primaryEndpoints.blob, "key": secret.key2}`,
		`self.spec.tags.map(k, k + "=" + self.spec.tags[k]).join(",")`,
		`has(self.status.x) ? self.status.x : "none"`,
	}
	self := storageAccount()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				// Distinct expressions churn the small cache too.
				expr := exprs[(g+i)%len(exprs)]
				if i%7 == 0 {
					expr = fmt.Sprintf(`self.metadata.name + "-%d"`, i)
				}
				p, err := e.Compile(expr, true)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := e.Eval(context.Background(), p, self, storageSecrets); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
