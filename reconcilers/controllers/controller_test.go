package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/aztenant/aztenant/reconcilers"
)

func namespace(annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Annotations: annotations}}
}

// A change of a namespace's labels or annotations reconciles its objects
// (the reconcile policy, and what constraints select on); an update that
// leaves them as they were (status, finalizers) does not.
func TestNamespaceMetadataChangedPredicate(t *testing.T) {
	p := func(v string) map[string]string {
		if v == "" {
			return nil
		}
		return map[string]string{reconcilers.AnnotationReconcilePolicy: v, "other": "x"}
	}
	for _, c := range []struct {
		old, new map[string]string
		want     bool
	}{
		{p(""), p("skip"), true},
		{p("skip"), p(""), true},
		{p("skip"), p("manage"), true},
		{p("skip"), p("skip"), false},
		{nil, map[string]string{}, false},
		{nil, map[string]string{"other": "y"}, true},
		{map[string]string{reconcilers.AnnotationReconcilePolicy: ""}, nil, true},
	} {
		e := event.UpdateEvent{ObjectOld: namespace(c.old), ObjectNew: namespace(c.new)}
		if got := namespaceMetadataChanged.Update(e); got != c.want {
			t.Errorf("annotations %v -> %v: %v, want %v", c.old, c.new, got, c.want)
		}
	}
	labelled := namespace(nil)
	labelled.Labels = map[string]string{"aztenant.io/allow-reconcile-annotations": "true"}
	if !namespaceMetadataChanged.Update(event.UpdateEvent{ObjectOld: namespace(nil), ObjectNew: labelled}) {
		t.Error("a label added to the namespace does not reconcile its objects")
	}
	if namespaceMetadataChanged.Create(event.CreateEvent{Object: namespace(p("skip"))}) {
		t.Error("a namespace created enqueues its objects")
	}
}
