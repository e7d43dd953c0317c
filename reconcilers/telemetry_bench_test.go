package reconcilers

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkARMTelemetryPolicy is the cost of ARMTelemetryPolicy per ARM
// attempt inside a reconcile, with tracing off (no provider, as without
// --otlp-endpoint) and on (the SDK, every span ended and handed to an
// exporter: synchronously to one that discards, and through the batch
// processor the operator uses), side by side in one run:
//
//	go test -run XXX -bench ARMTelemetryPolicy -benchmem ./reconcilers/
func BenchmarkARMTelemetryPolicy(b *testing.B) {
	sw := &switchingProvider{}
	sw.set(noop.NewTracerProvider())
	otel.SetTracerProvider(sw)
	pl := runtime.NewPipeline("bench", "v0", runtime.PipelineOptions{}, &policy.ClientOptions{
		PerRetryPolicies: []policy.Policy{ARMTelemetryPolicy()}, Transport: okTransport{},
		Retry: policy.RetryOptions{MaxRetries: -1}, Telemetry: policy.TelemetryOptions{Disabled: true},
	})
	for _, tc := range []struct {
		name string
		tp   trace.TracerProvider
	}{
		{"tracing=off", noop.NewTracerProvider()},
		{"tracing=on,sync-discard", sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))},
		{"tracing=on,batch-discard", sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sw.set(tc.tp)
			ctx, reconcileSpan := tracer.Start(withLabels(context.Background(), "ResourceGroup", "bench"), "Reconcile ResourceGroup")
			defer reconcileSpan.End()
			b.ReportAllocs()
			for b.Loop() {
				req, err := runtime.NewRequest(ctx, http.MethodGet, "https://management.azure.com/subscriptions/s/resourceGroups/rg?api-version=2021-04-01")
				if err != nil {
					b.Fatal(err)
				}
				resp, err := pl.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

type okTransport struct{}

func (okTransport) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// switchingProvider lets one process measure with and without tracing: the
// package's tracer delegates to the first global provider only.
type switchingProvider struct {
	embedded.TracerProvider
	cur atomic.Pointer[trace.Tracer]
}

func (p *switchingProvider) set(tp trace.TracerProvider) {
	t := tp.Tracer("github.com/aztenant/aztenant/reconcilers")
	p.cur.Store(&t)
}

func (p *switchingProvider) Tracer(string, ...trace.TracerOption) trace.Tracer {
	return switchingTracer{p: p}
}

type switchingTracer struct {
	embedded.Tracer
	p *switchingProvider
}

func (t switchingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	return (*t.p.cur.Load()).Start(ctx, name, opts...)
}
