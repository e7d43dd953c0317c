package kinds_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/aztenant/aztenant/reconcilers"
)

// A reconcile is one span with children for resolving its identity and each ARM
// call, and ARM calls are counted by kind, method, code and namespace.
func TestReconcileIsTracedAndCounted(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	const ns = "observe"
	s := newStack(t, ns)
	rg := resourceGroup(ns, "observe-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// The reconcile's span ends after the status write that made the group Ready.
	spans := map[string]sdktrace.ReadOnlySpan{}
	var root sdktrace.ReadOnlySpan
	_ = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		for _, sp := range rec.Ended() {
			spans[sp.Name()] = sp
		}
		root = spans["Reconcile ResourceGroup"]
		return root != nil, nil
	})
	if root == nil {
		t.Fatalf("no reconcile span among %v", keys(spans))
	}
	for _, child := range []string{"Resolve identity", "ARM GET", "ARM PUT"} {
		sp, ok := spans[child]
		if !ok {
			t.Errorf("no %q span", child)
			continue
		}
		if sp.Parent().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%q is not in the reconcile's trace", child)
		}
	}

	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var puts float64
	for _, f := range families {
		if f.GetName() != "aztenant_arm_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["kind"] == "ResourceGroup" && l["method"] == "PUT" && l["namespace"] == ns && l["code"] == "201" {
				puts += m.GetCounter().GetValue()
			}
		}
	}
	if puts != 1 {
		t.Errorf("aztenant_arm_requests_total{kind=ResourceGroup,method=PUT,code=201,namespace=%s} = %v, want 1", ns, puts)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
