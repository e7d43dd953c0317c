package tenancy

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSameNamespace(t *testing.T) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cfg"}}
	obj.Kind = "ConfigMap"
	cluster := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	tests := []struct {
		name  string
		refNS string
		obj   interface {
			GetNamespace() string
		}
		wantErr bool
	}{
		{"empty namespace means own", "", obj, false},
		{"own namespace", "team-a", obj, false},
		{"other namespace", "team-b", obj, true},
		{"cluster-scoped object to a namespace", "team-a", cluster, true},
	}
	for _, tt := range tests {
		var err error
		switch o := tt.obj.(type) {
		case *corev1.ConfigMap:
			err = SameNamespace(o, "Secret", tt.refNS, "creds")
		case *corev1.Namespace:
			err = SameNamespace(o, "Secret", tt.refNS, "creds")
		}
		var cn *CrossNamespaceError
		if tt.wantErr != errors.As(err, &cn) {
			t.Errorf("%s: SameNamespace = %v, want cross-namespace error %v", tt.name, err, tt.wantErr)
		}
		if cn != nil && (cn.Reason() != ReasonCrossNamespace || !strings.Contains(err.Error(), `"`+tt.refNS+`"`)) {
			t.Errorf("%s: error %q (reason %s) should name the namespace", tt.name, err, cn.Reason())
		}
	}
}
