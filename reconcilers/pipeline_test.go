package reconcilers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// denyMarked is a guard added once, to the reconciler's Guards: it refuses
// every call for an object labelled deny=true.
type denyMarked struct{ asked map[string]int }

type denial struct{}

func (denial) Error() string  { return "objects labelled deny=true are refused (test guard)" }
func (denial) Reason() string { return reconcilers.ReasonPolicyDenied }

func (g *denyMarked) Admit(_ context.Context, obj client.Object, _ tenancy.Target) error {
	g.asked[obj.GetName()]++
	if obj.GetLabels()["deny"] == "true" {
		return denial{}
	}
	return nil
}

// A guard added once applies to every mode of the pipeline: a reconcile, an
// observed object, a Plan's preview and a deletion are all refused by it
// before Azure is called for them.
func TestAGuardAddedOnceMeetsEveryMode(t *testing.T) {
	e, v := vaultEnv(t)
	g := &denyMarked{asked: map[string]int{}}
	r := e.Reconciler(false)
	r.Guards = []reconcilers.Guard{g}
	armCalls := func() int {
		n := 0
		for _, a := range e.Emu.Audit(emulator.AuditFilter{Service: "arm"}) {
			if strings.HasPrefix(strings.ToLower(a.Path), strings.ToLower(vaultID)) {
				n++
			}
		}
		return n
	}
	mark := func(deny bool, annotations map[string]string) {
		t.Helper()
		if err := e.Client.Get(t.Context(), client.ObjectKeyFromObject(v), v); err != nil {
			t.Fatal(err)
		}
		v.Labels = map[string]string{"deny": map[bool]string{true: "true", false: "false"}[deny]}
		v.Annotations = annotations
		if err := e.Client.Update(t.Context(), v); err != nil {
			t.Fatal(err)
		}
	}
	readyReason := func() string {
		c := meta.FindStatusCondition(v.Status.Conditions, reconcilers.ConditionReady)
		if c == nil {
			return "(none)"
		}
		return c.Reason
	}

	// manage
	mark(true, nil)
	e.Sync(t, r, v)
	if got := readyReason(); got != reconcilers.ReasonPolicyDenied || armCalls() != 0 {
		t.Fatalf("manage: Ready reason %s after %d ARM calls, want PolicyDenied and none", got, armCalls())
	}

	// observe
	mark(true, map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyObserve)})
	e.Sync(t, r, v)
	if got := readyReason(); got != reconcilers.ReasonPolicyDenied || armCalls() != 0 {
		t.Fatalf("observe: Ready reason %s after %d ARM calls, want PolicyDenied and no GET", got, armCalls())
	}

	// preview (a Plan)
	mark(true, nil)
	p := r.Preview(t.Context(), v.DeepCopy(), nil)
	if p.Action != planv1alpha1.ActionDenied || p.Reason != reconcilers.ReasonPolicyDenied || armCalls() != 0 {
		t.Fatalf("preview: %s %s after %d ARM calls, want Denied by PolicyDenied and none", p.Action, p.Reason, armCalls())
	}

	// delete: created while admitted, refused once marked.
	mark(false, nil)
	e.Sync(t, r, v)
	if got := readyReason(); got != reconcilers.ReasonSucceeded {
		t.Fatalf("admitted: Ready reason %s, want Succeeded", got)
	}
	created := armCalls()
	mark(true, nil)
	if err := e.Client.Delete(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(v)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Client.Get(t.Context(), client.ObjectKeyFromObject(v), v); err != nil {
		t.Fatalf("delete: the object went past the guard (%v); events %v", err, e.Events())
	}
	if got := readyReason(); got != reconcilers.ReasonPolicyDenied || len(v.Finalizers) == 0 {
		t.Fatalf("delete: Ready reason %s with finalizers %v, want PolicyDenied and the finalizer kept", got, v.Finalizers)
	}
	for _, a := range e.Emu.Audit(emulator.AuditFilter{Service: "arm", Method: http.MethodDelete}) {
		t.Fatalf("delete: %s %s was called past the guard", a.Method, a.Path)
	}
	if armCalls() != created {
		t.Fatalf("delete: %d ARM calls past the guard", armCalls()-created)
	}
	if g.asked[v.Name] < 5 {
		t.Fatalf("the guard was asked %d times, want once per reconcile at least", g.asked[v.Name])
	}
}
