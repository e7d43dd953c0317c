package reconcilers

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// tracer is the global provider's: a no-op unless the operator installs an
// exporter, so tracing costs nothing when not configured.
var tracer = otel.Tracer("github.com/aztenant/aztenant/reconcilers")

var (
	armRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "aztenant_arm_requests_total",
		Help: "ARM requests (each attempt, retries included) by kind, method, status code and namespace.",
	}, []string{"kind", "method", "code", "namespace"})
	armLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "aztenant_arm_request_duration_seconds",
		Help:    "ARM request latency by kind and method.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	}, []string{"kind", "method"})
)

func init() { metrics.Registry.MustRegister(armRequests, armLatency) }

type labelsKey struct{}

// callLabels travel in the request context from the reconciler to the policy.
type callLabels struct{ kind, namespace string }

func withLabels(ctx context.Context, kind, namespace string) context.Context {
	return context.WithValue(ctx, labelsKey{}, callLabels{kind, namespace})
}

// ARMPolicy records a metric and a span for every ARM attempt made on behalf
// of a reconcile. Install it with identity.Credentials.WithARMPolicies.
func ARMPolicy() policy.Policy { return armPolicy{} }

type armPolicy struct{}

func (armPolicy) Do(req *policy.Request) (*http.Response, error) {
	l, ok := req.Raw().Context().Value(labelsKey{}).(callLabels)
	if !ok {
		return req.Next()
	}
	method := req.Raw().Method
	ctx, span := tracer.Start(req.Raw().Context(), "ARM "+method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", method), attribute.String("url.path", req.Raw().URL.Path)))
	defer span.End()
	*req = *req.WithContext(ctx)
	start := time.Now()
	resp, err := req.Next()
	code := "error"
	if resp != nil {
		code = strconv.Itoa(resp.StatusCode)
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetStatus(codes.Error, resp.Status)
		}
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	armRequests.WithLabelValues(l.kind, method, code, l.namespace).Inc()
	armLatency.WithLabelValues(l.kind, method).Observe(time.Since(start).Seconds())
	return resp, err
}
