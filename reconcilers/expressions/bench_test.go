package expressions

import (
	"context"
	"strconv"
	"testing"
)

const benchExpr = `"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key1`

// BenchmarkCompileCold compiles a new expression every time (cache misses).
func BenchmarkCompileCold(b *testing.B) {
	e := newEvaluator(b, Options{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := e.Compile(benchExpr+` + "`+strconv.Itoa(i)+`"`, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCached is a cache hit.
func BenchmarkCompileCached(b *testing.B) {
	e := newEvaluator(b, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Compile(benchExpr, true); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEval(b *testing.B, expr string, secret bool) {
	e := newEvaluator(b, Options{})
	p, err := e.Compile(expr, secret)
	if err != nil {
		b.Fatal(err)
	}
	self, ctx := storageAccount(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Eval(ctx, p, self, storageSecrets); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalConcat is the typical connection string.
func BenchmarkEvalConcat(b *testing.B) { benchEval(b, benchExpr, true) }

// BenchmarkEvalMap builds a two-entry map.
func BenchmarkEvalMap(b *testing.B) {
	benchEval(b, `{"blob": self.status.primaryEndpoints.blob, "key": secret.key1}`, true)
}

// BenchmarkEvalComprehension joins the tags (a context and timeout per eval).
func BenchmarkEvalComprehension(b *testing.B) {
	benchEval(b, `self.spec.tags.map(k, k + "=" + self.spec.tags[k]).join(",")`, false)
}

// BenchmarkApply is four expressions through the cache, as a reconcile does.
func BenchmarkApply(b *testing.B) {
	e := newEvaluator(b, Options{})
	ops := applyBenchOps()
	self, ctx := storageAccount(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Apply(ctx, e, ops, self, storageSecrets); err != nil {
			b.Fatal(err)
		}
	}
}
