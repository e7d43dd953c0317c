package exports

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// A Secret marked with what was exported to it is intact until one of those
// keys is changed or removed; keys of its own are not the operator's.
func TestExportedSecretIntact(t *testing.T) {
	s := &corev1.Secret{Data: map[string][]byte{"key1": []byte("k"), "mine": []byte("x")}}
	if intact(s) {
		t.Error("a Secret never marked is intact")
	}
	if !markExported(s, map[string]string{"key1": "k", "blob": ""}) || markExported(s, map[string]string{"key1": "k", "blob": ""}) {
		t.Error("marking twice should change the Secret once")
	}
	if intact(s) {
		t.Error("intact although blob was never written")
	}
	s.Data["blob"] = nil
	s.Data["mine"] = []byte("changed")
	if !intact(s) {
		t.Error("not intact after a key the operator does not write changed")
	}
	s.Data["key1"] = []byte("other")
	if intact(s) {
		t.Error("intact after key1 changed")
	}
	delete(s.Data, "key1")
	if intact(s) {
		t.Error("intact after key1 was removed")
	}
}

func TestExportsHash(t *testing.T) {
	d := map[string]*azurev1alpha1.SecretDestination{"key1": {Name: "s", Key: "k"}, "key2": nil}
	e := []azurev1alpha1.DestinationExpression{{Name: "s", Key: "c", Value: "secret.key1"}}
	h := Hash(d, e)
	if h != Hash(map[string]*azurev1alpha1.SecretDestination{"key2": nil, "key1": {Name: "s", Key: "k"}}, e) {
		t.Error("the digest depends on the map's order")
	}
	if h == Hash(d, []azurev1alpha1.DestinationExpression{{Name: "s", Key: "c", Value: "secret.key2"}}) {
		t.Error("a changed expression has the same digest")
	}
}

// The annotation overrides the operator's period, which is 24h when unset; a
// bad value is refused.
func TestSecretRefreshPeriod(t *testing.T) {
	rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rg"}}
	for _, c := range []struct {
		flag       time.Duration
		annotation string
		want       time.Duration
	}{{0, "", 24 * time.Hour}, {time.Hour, "", time.Hour}, {time.Hour, "3s", 3 * time.Second}, {time.Hour, "500ms", 0}, {time.Hour, "1 day", 0}} {
		rg.Annotations = nil
		if c.annotation != "" {
			rg.Annotations = map[string]string{AnnotationSecretRefreshPeriod: c.annotation}
		}
		got, err := RefreshPeriod(rg, c.flag)
		if got != c.want || (err != nil) != (c.want == 0) {
			t.Errorf("flag %v annotation %q: %v, %v; want %v", c.flag, c.annotation, got, err, c.want)
		}
	}
}
