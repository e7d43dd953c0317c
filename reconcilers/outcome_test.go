package reconcilers

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An outcome is an error that survives wrapping, matches by reason, and
// unwraps to the ARM error it was classified from.
func TestOutcomeIsAnError(t *testing.T) {
	var err error = newOutcome(ReasonInvalidSpec, "spec.location is required")
	if err.Error() != "InvalidSpec: spec.location is required" {
		t.Errorf("Error() = %q", err.Error())
	}
	wrapped := fmt.Errorf("step: %w", err)
	if o := outcomeOf(wrapped); o == nil || o.Reason != ReasonInvalidSpec {
		t.Errorf("outcomeOf(wrapped) = %v", o)
	}
	if !errors.Is(wrapped, &Outcome{Reason: ReasonInvalidSpec}) || !errors.Is(wrapped, &Outcome{}) || errors.Is(wrapped, &Outcome{Reason: ReasonSucceeded}) {
		t.Error("errors.Is does not match outcomes by reason")
	}
	if outcomeOf(errors.New("conflict")) != nil || outcomeOf(nil) != nil || errors.Is(errGone, &Outcome{}) {
		t.Error("a plain error is taken for an outcome")
	}

	armErr := &azcore.ResponseError{StatusCode: http.StatusForbidden, ErrorCode: "AuthorizationFailed"}
	o := classify(fmt.Errorf("GET: %w", armErr), "client")
	var re *azcore.ResponseError
	if !errors.As(o, &re) || re != armErr {
		t.Errorf("the outcome of an ARM error does not unwrap to it: %v", o)
	}
}

// Ready, Stalled and Reconciling come from the reason's class; Terminal
// (not requeued, as controller-runtime's TerminalError) from the requeue.
func TestOutcomeClassAndTerminal(t *testing.T) {
	armErr := func(code int) error { return &azcore.ResponseError{StatusCode: code} }
	for _, tc := range []struct {
		name     string
		o        *Outcome
		ready    metav1.ConditionStatus
		class    Class
		terminal bool
	}{
		{"invalid spec", newOutcome(ReasonInvalidSpec, "m"), metav1.ConditionFalse, ClassTerminal, true},
		{"ready", readyOutcome(time.Hour), metav1.ConditionTrue, ClassSucceeded, false},
		{"skipped", newOutcome(ReasonReconcileSkipped, "m"), metav1.ConditionTrue, ClassSucceeded, true},
		{"in flight", newOutcome(ReasonReconciling, "m").after(time.Second), metav1.ConditionUnknown, ClassTransient, false},
		{"throttled", classify(armErr(http.StatusTooManyRequests), "c"), metav1.ConditionFalse, ClassTransient, false},
		{"forbidden backs off", classify(armErr(http.StatusForbidden), "c"), metav1.ConditionFalse, ClassTerminal, false},
		{"every AuthorizationFailed backs off", newOutcome(ReasonAuthorizationFailed, "m"), metav1.ConditionFalse, ClassTerminal, false},
		{"rejected", classify(armErr(http.StatusBadRequest), "c"), metav1.ConditionFalse, ClassTerminal, true},
		{"a conflict is looked at again", classify(armErr(http.StatusConflict), "c"), metav1.ConditionFalse, ClassTerminal, false},
	} {
		if got := tc.o.Ready(); got != tc.ready {
			t.Errorf("%s: Ready %s, want %s", tc.name, got, tc.ready)
		}
		if got := tc.o.Class().Class; got != tc.class {
			t.Errorf("%s: class %s, want %s", tc.name, got, tc.class)
		}
		if got := tc.o.Terminal(); got != tc.terminal {
			t.Errorf("%s: Terminal %v, want %v", tc.name, got, tc.terminal)
		}
	}
	if d := readyOutcome(time.Hour).RequeueAfter; d < time.Hour || d > time.Hour+6*time.Minute {
		t.Errorf("ready: requeue after %s, want the period with up to a tenth of jitter", d)
	}
	if d := newOutcome(ReasonGuardFailed, "m").RequeueAfter; d < 30*time.Second || d > 33*time.Second {
		t.Errorf("a check that could not be made: requeue after %s, want 30s and a tenth of jitter (the requeue table)", d)
	}
	if d := newOutcome(ReasonPolicyDenied, "m").RequeueAfter; d < 5*time.Minute || d > 5*time.Minute+30*time.Second {
		t.Errorf("a denial: requeue after %s, want 5m and a tenth of jitter (the requeue table)", d)
	}
}
