package onboarding

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// tracer is the global provider's: a no-op unless the operator installs an
// exporter (internal/operator.Tracing).
var tracer = otel.Tracer("github.com/aztenant/aztenant/tenancy/onboarding")

// Span names: a reconcile, the steps of a pass (ResourceGroups, then each
// namespace's ManagedIdentity, FederatedCredential, RoleAssignments,
// ServiceAccount, Identity ...) with their ARM calls as children, and each
// removal of what onboarding created.
const (
	SpanReconcile = "Reconcile Tenant onboarding"
	// SpanStepPrefix + a step's name (tenancyv1alpha1.Step*).
	SpanStepPrefix = "Onboarding "
	// SpanRemovalPrefix + a kind (KindRoleAssignment ...).
	SpanRemovalPrefix = "Offboarding "
	// AttrStep is a step span's step name.
	AttrStep = "aztenant.onboarding.step"
)

// stepTrace holds the span of the step a pass is in: a step's span starts
// when the pass begins its work (pass.begin) and ends when the pass records
// the step's state (pass.step), so its ARM calls are its children. A pass
// runs on one goroutine.
type stepTrace struct {
	ran      bool // a pass ran (its outcome is the Onboarded condition)
	open     trace.Span
	ctx      context.Context
	ns, name string
}

type stepTraceKey struct{}

// passTrace is the step trace of the pass starting now in ctx's reconcile.
func passTrace(ctx context.Context) *stepTrace {
	tr, _ := ctx.Value(stepTraceKey{}).(*stepTrace)
	if tr != nil {
		tr.ran = true
	}
	return tr
}

// begin returns the context of the step (ns "" for the shared one) the pass
// works on now, starting its span unless that step's is open already (a
// step working on several groups or assignments).
func (s *pass) begin(ctx context.Context, ns, name string) context.Context {
	tr := s.tr
	if tr == nil {
		return ctx
	}
	if tr.open != nil && tr.ns == ns && tr.name == name {
		return tr.ctx
	}
	tr.close(nil)
	attrs := []attribute.KeyValue{attribute.String(AttrStep, name)}
	if ns != "" {
		attrs = append(attrs, attribute.String(identity.AttrNamespace, ns))
	}
	tr.ctx, tr.open = tracer.Start(ctx, SpanStepPrefix+name, trace.WithAttributes(attrs...))
	tr.ns, tr.name = ns, name
	return tr.ctx
}

// endStep ends the open span of the step recorded, with its state.
func (tr *stepTrace) endStep(st tenancyv1alpha1.OnboardingStep) {
	if tr == nil || tr.open == nil || tr.ns != st.Namespace || tr.name != st.Name {
		return
	}
	span := tr.open
	tr.open, tr.ctx = nil, nil
	span.SetAttributes(attribute.String("aztenant.onboarding.state", st.State))
	if len(st.IDs) > 0 {
		span.SetAttributes(attribute.StringSlice("aztenant.onboarding.ids", st.IDs))
	}
	if st.Reason != "" {
		// A failure, or what a step that is done would not do.
		span.SetAttributes(attribute.String(identity.AttrReason, st.Reason))
	}
	if st.State == tenancyv1alpha1.StepFailed {
		span.SetStatus(codes.Error, st.Message)
	} else {
		span.SetStatus(codes.Ok, "")
	}
	span.End()
}

// close ends a span left open: a step the pass left on a Kubernetes API
// error (err), which is returned instead of being recorded.
func (tr *stepTrace) close(err error) {
	if tr == nil || tr.open == nil {
		return
	}
	if err != nil {
		tr.open.SetStatus(codes.Error, err.Error())
	}
	tr.open.End()
	tr.open, tr.ctx = nil, nil
}

// removeTraced is remove in a span of its own.
func (s *pass) removeTraced(ctx context.Context, c tenancyv1alpha1.CreatedResource) (bool, error) {
	s.tr.close(nil)
	attrs := []attribute.KeyValue{attribute.String("aztenant.onboarding.kind", c.Kind), attribute.String("aztenant.onboarding.id", c.ID)}
	if c.Namespace != "" {
		attrs = append(attrs, attribute.String(identity.AttrNamespace, c.Namespace))
	}
	ctx, span := tracer.Start(ctx, SpanRemovalPrefix+c.Kind, trace.WithAttributes(attrs...))
	defer span.End()
	done, err := s.remove(ctx, c)
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case !done:
		span.SetAttributes(attribute.Bool("aztenant.onboarding.pending", true))
		span.SetStatus(codes.Ok, "")
	default:
		span.SetStatus(codes.Ok, "")
	}
	return done, err
}

// traceOutcome records a reconcile's outcome: the Onboarded condition's
// reason, error status when it reports a failure (not while work is in
// progress or offboarding waits) or the reconcile failed.
func traceOutcome(span trace.Span, t *tenancyv1alpha1.Tenant, ran bool, res reconcile.Result, err error) {
	if res.RequeueAfter > 0 {
		span.SetAttributes(attribute.String("aztenant.requeue_after", res.RequeueAfter.String()))
	}
	var cond *metav1.Condition
	if ran {
		cond = meta.FindStatusCondition(t.Status.Conditions, ConditionOnboarded)
	}
	if cond != nil {
		span.SetAttributes(attribute.String(identity.AttrReason, cond.Reason))
	}
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case cond != nil && cond.Status != metav1.ConditionTrue && cond.Reason != ReasonOffboarding && cond.Reason != ReasonInProgress:
		span.SetStatus(codes.Error, cond.Reason+": "+strings.TrimSpace(cond.Message))
	default:
		span.SetStatus(codes.Ok, "")
	}
}
