package reconcilers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestLastWrites(t *testing.T) {
	var w lastWrites
	at := func(rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x", ResourceVersion: rv}}
	}
	if w.differs(at("5")) {
		t.Error("an object never written is reported stale: every first reconcile would read twice")
	}
	w.record(at("7"))
	if !w.differs(at("5")) {
		t.Error("a cached copy from before our write is not reported")
	}
	if w.differs(at("7")) {
		t.Error("the version we wrote is reported stale: the steady state would read twice")
	}
	if !w.differs(at("9")) {
		t.Error("a version written by someone else since is not reported")
	}
	w.forget(client.ObjectKeyFromObject(at("")))
	if w.differs(at("5")) {
		t.Error("a forgotten object is still tracked")
	}
}
