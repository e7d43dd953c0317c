package kinds_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/aztenant/aztenant/reconcilers"
)

// A reconcile is one span with children for resolving its identity and each ARM
// call, and ARM calls are counted by kind, method, code and namespace.
func TestReconcileIsTracedAndCounted(t *testing.T) {
	t.Parallel()
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

	// The reconcile's span ends after the status write that made the group
	// Ready. Other tests of the package reconcile at the same time, under the
	// same tracer provider: look for one reconcile of a ResourceGroup whose
	// trace holds the three steps.
	children := []string{"Resolve identity", "ARM GET", "ARM PUT"}
	var seen []string
	found := false
	_ = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		ended := rec.Ended()
		seen = seen[:0]
		byTrace := map[trace.TraceID]map[string]bool{}
		for _, sp := range ended {
			seen = append(seen, sp.Name())
			id := sp.SpanContext().TraceID()
			if byTrace[id] == nil {
				byTrace[id] = map[string]bool{}
			}
			byTrace[id][sp.Name()] = true
		}
		for _, names := range byTrace {
			if !names["Reconcile ResourceGroup"] {
				continue
			}
			all := true
			for _, c := range children {
				all = all && names[c]
			}
			if all {
				found = true
				return true, nil
			}
		}
		return false, nil
	})
	if !found {
		t.Fatalf("no trace of a ResourceGroup reconcile holds %q; spans ended: %v", children, seen)
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
