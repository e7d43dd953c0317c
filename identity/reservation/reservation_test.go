package reservation_test

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestEditRole(t *testing.T) {
	env := testenv.Get(t)
	var r rbacv1.ClusterRole
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: "edit"}, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("edit has %d rules, aggregation %v", len(r.Rules), r.AggregationRule != nil)
}
