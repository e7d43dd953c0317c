package reconcilers

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// A reconcile's span says how it ended: OK for a state that is fine or in
// flight, Error with the reason's message for one that failed (retried or
// stalled) and for an API server error; the reason and its class are
// attributes.
func TestReconcileSpanCarriesTheOutcome(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test")
	for _, tc := range []struct {
		name   string
		state  *Outcome
		err    error
		status codes.Code
		class  Class
	}{
		{"succeeded", &Outcome{Reason: ReasonSucceeded}, nil, codes.Ok, ClassSucceeded},
		{"in flight", &Outcome{Reason: ReasonReconciling}, nil, codes.Ok, ClassTransient},
		{"retried", &Outcome{Reason: ReasonAzureUnavailable, Message: "ARM 503"}, nil, codes.Error, ClassTransient},
		{"stalled", &Outcome{Reason: ReasonAuthorizationFailed, Message: "403"}, nil, codes.Error, ClassTerminal},
		{"api error", nil, errors.New("conflict"), codes.Error, ""},
		{"gone", nil, errGone, codes.Ok, ""},
	} {
		_, span := tr.Start(context.Background(), tc.name)
		obj := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{UID: types.UID("outcome-" + tc.name)}}
		traceReconcile(span, obj).end(withNotes(context.Background()), obj, tc.state, reconcile.Result{RequeueAfter: time.Second}, tc.err)
		span.End()
		got := rec.Ended()[len(rec.Ended())-1]
		if got.Status().Code != tc.status {
			t.Errorf("%s: status %v %q, want %v", tc.name, got.Status().Code, got.Status().Description, tc.status)
		}
		attrs := map[string]string{}
		for _, kv := range got.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		if tc.state != nil && (attrs["aztenant.reason"] != tc.state.Reason || attrs["aztenant.reason.class"] != string(tc.class)) {
			t.Errorf("%s: attributes %v", tc.name, attrs)
		}
		if tc.status == codes.Error && tc.state != nil && got.Status().Description != tc.state.Reason+": "+tc.state.Message {
			t.Errorf("%s: message %q", tc.name, got.Status().Description)
		}
		if tc.err == errGone && attrs["aztenant.finalizer_removed"] != "true" {
			t.Errorf("gone: attributes %v", attrs)
		}
	}
}

// The reconcile that leaves a resume token in status started a long-running
// operation: the reconciles that begin with the token link to its span,
// until one ends without it.
func TestPollsLinkToTheReconcileThatStartedTheOperation(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test")
	obj := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{UID: "lro-object"}}
	reconcileOnce := func(tokenAfter string) sdktrace.ReadOnlySpan {
		_, span := tr.Start(context.Background(), "Reconcile ResourceGroup")
		rt := traceReconcile(span, obj)
		obj.AzureStatus().ResumeToken = tokenAfter
		rt.end(withNotes(context.Background()), obj, &Outcome{Reason: ReasonReconciling}, reconcile.Result{}, nil)
		span.End()
		return rec.Ended()[len(rec.Ended())-1]
	}
	start := reconcileOnce("token")
	poll := reconcileOnce("token")
	done := reconcileOnce("")
	after := reconcileOnce("")
	for name, s := range map[string]sdktrace.ReadOnlySpan{"poll": poll, "done": done} {
		if l := s.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != start.SpanContext().SpanID() {
			t.Errorf("%s: links %+v, want one to %s", name, l, start.SpanContext().SpanID())
		}
	}
	if len(start.Links()) != 0 || len(after.Links()) != 0 {
		t.Errorf("the start or a later reconcile links somewhere: %v, %v", start.Links(), after.Links())
	}
	if _, ok := operations.started(obj.UID); ok {
		t.Error("the operation is still remembered after it ended")
	}
}
