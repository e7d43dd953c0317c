package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// This file is the reconcilers' telemetry: the span and metrics of every ARM
// attempt (ARMTelemetryPolicy), the span of resolving the credential, and
// what a reconcile's span records (its outcome, its decisions, the link from
// the polls of a long-running operation to the reconcile that started it).
// It is not the observe reconcile policy (observing.go) nor Kind.Observe.

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

// ARMTelemetryPolicy records a span for every ARM attempt made within a traced
// operation (a reconcile, an onboarding step), and a metric for those a
// reconcile makes. Install it with identity.Credentials.WithARMPolicies.
func ARMTelemetryPolicy() policy.Policy { return armTelemetryPolicy{} }

type armTelemetryPolicy struct{}

func (armTelemetryPolicy) Do(req *policy.Request) (*http.Response, error) {
	ctx := req.Raw().Context()
	l, labelled := ctx.Value(labelsKey{}).(callLabels)
	traced := trace.SpanContextFromContext(ctx).IsValid()
	if !labelled && !traced {
		return req.Next()
	}
	method := req.Raw().Method
	var span trace.Span
	if traced {
		ctx, span = tracer.Start(ctx, "ARM "+method, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("http.request.method", method), attribute.String("url.path", req.Raw().URL.Path)))
		defer span.End()
		*req = *req.WithContext(ctx)
	}
	start := time.Now()
	resp, err := req.Next()
	code := "error"
	if resp != nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	if span != nil {
		endARMSpan(span, resp, err)
	}
	if labelled {
		armRequests.WithLabelValues(l.kind, method, code, l.namespace).Inc()
		armLatency.WithLabelValues(l.kind, method).Observe(time.Since(start).Seconds())
	}
	return resp, err
}

func endARMSpan(span trace.Span, resp *http.Response, err error) {
	if resp != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		if code := resp.Header.Get("x-ms-error-code"); code != "" {
			span.SetAttributes(attribute.String("azure.error.code", code))
		}
		if resp.StatusCode >= 400 {
			span.SetStatus(codes.Error, resp.Status)
		}
	}
	if err != nil {
		// The bearer policy's error when no token could be had is
		// azidentity's, with Entra's whole answer: the exchange's own span
		// tells it, classified.
		msg := err.Error()
		var afe *azidentity.AuthenticationFailedError
		if errors.As(err, &afe) {
			msg = "no access token: the exchange with Entra ID failed"
		}
		span.RecordError(errors.New(msg))
		span.SetStatus(codes.Error, msg)
	}
}

// startCredentialSpan opens the span of resolving the Identity serving a
// reconcile (no exchange: that happens at the first ARM call that needs a
// token, in a span of its own); the returned function ends it with the
// principal found, or the reason there is none.
func startCredentialSpan(ctx context.Context) (context.Context, func(identity.Scope, error)) {
	ctx, span := tracer.Start(ctx, "Resolve identity")
	return ctx, func(s identity.Scope, err error) {
		defer span.End()
		if s.ClientID != "" {
			span.SetAttributes(attribute.String(identity.AttrIdentity, s.Identity), attribute.String(identity.AttrServiceAccount, s.ServiceAccount),
				attribute.String(identity.AttrClientID, s.ClientID), attribute.String(identity.AttrTenantID, s.TenantID),
				attribute.String("aztenant.subscription_id", s.SubscriptionID))
		}
		if err != nil {
			if reason := identity.ReasonOf(err); reason != "" {
				span.SetAttributes(attribute.String(identity.AttrReason, reason))
			}
			span.SetStatus(codes.Error, err.Error())
		}
	}
}

// reconcileTrace records what a reconcile's span learns besides its
// children: the outcome, and the long-running operation it started or
// polls.
type reconcileTrace struct {
	span trace.Span
	uid  types.UID
	// polling: the reconcile began with a resume token in status.
	polling bool
}

// traceReconcile is called once the object is read. A reconcile that
// continues a long-running operation links to the span of the reconcile
// that started it.
func traceReconcile(span trace.Span, obj azurev1alpha1.Resource) reconcileTrace {
	t := reconcileTrace{span: span, uid: obj.GetUID(), polling: obj.AzureStatus().ResumeToken != ""}
	if t.polling {
		span.SetAttributes(attribute.Bool("aztenant.operation.polling", true))
		if sc, ok := operations.started(t.uid); ok {
			span.AddLink(trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{attribute.String("aztenant.link", "started the long-running operation")}})
		}
	}
	return t
}

// end records the outcome: the Ready reason and its class, the ARM ID and
// principal, when the object is looked at again; status Error with the
// message when the reconcile failed (Ready False, whether retried or
// stalled) or the API server failed it, OK otherwise.
func (t reconcileTrace) end(ctx context.Context, obj azurev1alpha1.Resource, o *Outcome, res reconcile.Result, err error) {
	span := t.span
	n := notesOf(ctx)
	if n.armID != "" {
		span.SetAttributes(attribute.String("aztenant.arm_id", n.armID))
	}
	if n.clientID != "" {
		span.SetAttributes(attribute.String(identity.AttrClientID, n.clientID))
	}
	if errors.Is(err, errGone) {
		// The finalizer is gone, and so is the object.
		operations.forget(t.uid)
		span.SetAttributes(attribute.Bool("aztenant.finalizer_removed", true))
		span.SetStatus(codes.Ok, "")
		return
	}
	switch token := obj.AzureStatus().ResumeToken; {
	case token == "":
		operations.forget(t.uid)
	case !t.polling:
		// This reconcile started the operation: the polls to come link here.
		operations.start(t.uid, span.SpanContext())
		span.SetAttributes(attribute.Bool("aztenant.operation.started", true))
	}
	if res.RequeueAfter > 0 {
		span.SetAttributes(attribute.String("aztenant.requeue_after", res.RequeueAfter.String()))
	}
	if o != nil {
		span.SetAttributes(attribute.String(identity.AttrReason, o.Reason), attribute.String("aztenant.reason.class", string(o.Class().Class)))
	}
	switch {
	case err != nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	case o != nil && o.Ready() == metav1.ConditionFalse:
		span.SetStatus(codes.Error, o.Reason+": "+o.Message)
	default:
		span.SetStatus(codes.Ok, "")
	}
}

// traceDecision adds a decision (create, update, adopt, delete, detach) to
// the reconcile's span as an event, with the log line's fields (paths, IDs
// and reasons: never a value of the spec or of Azure's answer).
func traceDecision(ctx context.Context, decision string, kv ...any) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(fmt.Sprint(kv[i]), fmt.Sprint(kv[i+1])))
	}
	span.AddEvent(decision, trace.WithAttributes(attrs...))
}

// operations remembers, per object, the span of the reconcile that started
// its long-running operation, for the reconciles polling it to link to. It
// lives in memory: after a restart the operation is resumed from its token
// in status, but its polls no longer link to the trace that started it.
var operations = &operationSpans{m: map[types.UID]trace.SpanContext{}}

// maxOperationSpans bounds the map: an object deleted outside a reconcile
// that sees it go leaves its entry behind.
const maxOperationSpans = 10000

type operationSpans struct {
	mu sync.Mutex
	m  map[types.UID]trace.SpanContext
}

func (o *operationSpans) start(uid types.UID, sc trace.SpanContext) {
	if !sc.IsValid() || uid == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.m) >= maxOperationSpans {
		for k := range o.m {
			delete(o.m, k) // any: losing a link costs nothing else
			break
		}
	}
	o.m[uid] = sc
}

func (o *operationSpans) started(uid types.UID) (trace.SpanContext, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	sc, ok := o.m[uid]
	return sc, ok
}

func (o *operationSpans) forget(uid types.UID) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, uid)
}
