package identity

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracer is the global provider's: a no-op unless the operator installs an
// exporter (internal/operator.Tracing).
var tracer = otel.Tracer("github.com/aztenant/aztenant/identity")

// Span attributes the operator's packages share. None carries a secret: IDs,
// names and reasons only, never an assertion, a token or a key.
const (
	AttrClientID       = "aztenant.identity.client_id"
	AttrTenantID       = "aztenant.identity.tenant_id"
	AttrPrincipalID    = "aztenant.identity.principal_id"
	AttrIdentity       = "aztenant.identity.name"
	AttrServiceAccount = "k8s.serviceaccount.name"
	AttrNamespace      = "k8s.namespace.name"
	AttrName           = "aztenant.name"
	// AttrReason is the outcome's reason: a Ready reason (a reconcile, an
	// Identity), FederationRejected and the like (an exchange).
	AttrReason = "aztenant.reason"
)

// Span names of the identity package.
const (
	SpanExchange     = "Entra token exchange"
	SpanTokenRequest = "Kubernetes TokenRequest"
	SpanReconcile    = "Reconcile Identity"
)

// exchangeTrace carries the span of a credential's exchange with Entra ID
// from the assertion callback, which starts it (azidentity asks for an
// assertion only when it exchanges), to the GetToken that ends it with the
// outcome. GetToken puts one in the context it passes down.
type exchangeTrace struct {
	mu   sync.Mutex
	span trace.Span
}

type exchangeKey struct{}

func withExchangeTrace(ctx context.Context) (context.Context, *exchangeTrace) {
	x := &exchangeTrace{}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

func exchangeTraceFrom(ctx context.Context) *exchangeTrace {
	x, _ := ctx.Value(exchangeKey{}).(*exchangeTrace)
	return x
}

// start opens the exchange's span, a child of the span in ctx (the
// reconcile, or the ARM call's, that needed a token).
func (x *exchangeTrace) start(ctx context.Context, s Scope) context.Context {
	if x == nil {
		return ctx
	}
	ctx, span := tracer.Start(ctx, SpanExchange, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String(AttrClientID, s.ClientID), attribute.String(AttrTenantID, s.TenantID),
		attribute.String(AttrNamespace, s.Namespace), attribute.String(AttrServiceAccount, s.ServiceAccount)))
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.span != nil {
		x.span.End() // an exchange azidentity retried itself
	}
	x.span = span
	return ctx
}

// end closes the open span, if any, with the exchange's outcome: the
// principal Entra issued a token for, or the refusal (Entra's description,
// never the assertion).
func (x *exchangeTrace) end(principal string, expires time.Time, err error) {
	if x == nil {
		return
	}
	x.mu.Lock()
	span := x.span
	x.span = nil
	x.mu.Unlock()
	if span == nil {
		return
	}
	if err != nil {
		if reason := ReasonOf(err); reason != "" {
			span.SetAttributes(attribute.String(AttrReason, reason))
		}
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(attribute.String(AttrPrincipalID, principal), attribute.String("aztenant.token.expires", expires.UTC().Format(time.RFC3339)))
		span.SetStatus(codes.Ok, "")
	}
	span.End()
}

// close ends a span left open (an outcome nobody reported) as it is.
func (x *exchangeTrace) close() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.span != nil {
		x.span.End()
		x.span = nil
	}
}

// startTokenRequest opens the span of a TokenRequest to the API server.
func startTokenRequest(ctx context.Context, ns, sa, audience string, ttl time.Duration) (context.Context, trace.Span) {
	return tracer.Start(ctx, SpanTokenRequest, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String(AttrNamespace, ns), attribute.String(AttrServiceAccount, sa),
		attribute.String("aztenant.token.audience", audience), attribute.String("aztenant.token.requested_ttl", ttl.String())))
}

// endTokenRequest closes it with what the API server answered: the
// expiry of the token it minted (never the token), or its error.
func endTokenRequest(span trace.Span, expires time.Time, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(attribute.String("aztenant.token.expires", expires.UTC().Format(time.RFC3339)))
		span.SetStatus(codes.Ok, "")
	}
	span.End()
}

// traceIdentity records an Identity reconcile's outcome on its span: the
// Ready reason and principal, error status when it is not Ready.
func traceIdentity(span trace.Span, ready *readyOutcome, err error) {
	if ready != nil {
		span.SetAttributes(attribute.String(AttrReason, ready.reason))
		if ready.clientID != "" {
			span.SetAttributes(attribute.String(AttrClientID, ready.clientID), attribute.String(AttrTenantID, ready.tenantID))
		}
		if ready.principalID != "" {
			span.SetAttributes(attribute.String(AttrPrincipalID, ready.principalID))
		}
	}
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case ready != nil && !ready.ok:
		span.SetStatus(codes.Error, ready.message)
	default:
		span.SetStatus(codes.Ok, "")
	}
}

// readyOutcome is what an Identity's status says after a reconcile.
type readyOutcome struct {
	ok                              bool
	reason, message                 string
	clientID, tenantID, principalID string
}
