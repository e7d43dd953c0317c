package tenancy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// startManager runs a manager with the Tenant controller and a Directory fed
// from its cache, until the test ends.
func startManager(t *testing.T, setup func(ctrl.Manager, *Directory) error) (*testenv.Env, *Directory) {
	t.Helper()
	env := testenv.Get(t)
	mgr, err := ctrl.NewManager(env.OperatorConfig, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             configController(),
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := NewDirectory(mgr.GetClient(), ServeTenants())
	if err := dir.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		if err := setup(mgr, dir); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return env, dir
}

func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %s: %v", o.GetName(), err)
		}
	}
}

// tenantState renders what `kubectl get tenant` would show.
func tenantState(c client.Client, name string) (namespaces []string, ready *metav1.Condition, observed bool, err error) {
	var tn tenancyv1alpha1.Tenant
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &tn); err != nil {
		return nil, nil, false, err
	}
	return tn.Status.Namespaces, meta.FindStatusCondition(tn.Status.Conditions, ConditionReady),
		tn.Status.ObservedGeneration == tn.Generation, nil
}

func expectTenant(t *testing.T, c client.Client, name string, wantNS []string, wantStatus metav1.ConditionStatus, wantReason, wantMsg string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "tenant "+name+" status", func() (bool, string) {
		ns, ready, observed, err := tenantState(c, name)
		if err != nil {
			return false, err.Error()
		}
		if ready == nil {
			return false, "no Ready condition"
		}
		ok := slices.Equal(ns, wantNS) && observed && ready.Status == wantStatus && ready.Reason == wantReason &&
			strings.Contains(ready.Message, wantMsg)
		return ok, strings.Join(ns, ",") + " " + string(ready.Status) + " " + ready.Reason + ": " + ready.Message
	})
}

func TestTenantControllerOnAPIServer(t *testing.T) {
	env, dir := startManager(t, func(mgr ctrl.Manager, _ *Directory) error {
		return (&TenantReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
	})
	c := env.Client
	ctx := context.Background()
	create(t, c,
		namespace("ctl-a1", map[string]string{"ctl-team": "a"}),
		namespace("ctl-a2", map[string]string{"ctl-team": "a"}),
		namespace("ctl-x", nil),
		tenant("ctl-a", func(s *tenancyv1alpha1.TenantSpec) {
			s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"ctl-team": "a"}}
			s.Namespaces = []string{"ctl-zz-not-yet"}
		}),
	)

	t.Run("selection by label, sorted, Ready", func(t *testing.T) {
		expectTenant(t, c, "ctl-a", []string{"ctl-a1", "ctl-a2"}, metav1.ConditionTrue, ReasonSelected, "2 namespace")
	})

	t.Run("a namespace gaining the label joins", func(t *testing.T) {
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: "ctl-x"}, ns); err != nil {
			t.Fatal(err)
		}
		ns.Labels = map[string]string{"ctl-team": "a"}
		if err := c.Update(ctx, ns); err != nil {
			t.Fatal(err)
		}
		expectTenant(t, c, "ctl-a", []string{"ctl-a1", "ctl-a2", "ctl-x"}, metav1.ConditionTrue, ReasonSelected, "3 namespace")
		testenv.Eventually(t, time.Minute, "directory to see the label", func() (bool, string) {
			tn, err := dir.TenantFor(ctx, "ctl-x")
			return err == nil && tn.Name == "ctl-a", errString(err)
		})
	})

	t.Run("a namespace named in the spec joins when it appears", func(t *testing.T) {
		create(t, c, namespace("ctl-zz-not-yet", nil))
		expectTenant(t, c, "ctl-a", []string{"ctl-a1", "ctl-a2", "ctl-x", "ctl-zz-not-yet"}, metav1.ConditionTrue, ReasonSelected, "4 namespace")
	})

	t.Run("conflict shows on both Tenants and clears", func(t *testing.T) {
		create(t, c, tenant("ctl-b", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"ctl-a2"} }))
		expectTenant(t, c, "ctl-b", []string{"ctl-a2"}, metav1.ConditionFalse, ReasonNamespaceConflict, `namespace "ctl-a2" is also selected by Tenant "ctl-a"`)
		expectTenant(t, c, "ctl-a", []string{"ctl-a1", "ctl-a2", "ctl-x", "ctl-zz-not-yet"}, metav1.ConditionFalse, ReasonNamespaceConflict, `Tenant "ctl-b"`)
		testenv.Eventually(t, time.Minute, "directory conflict", func() (bool, string) {
			_, err := dir.TenantFor(ctx, "ctl-a2")
			var conflict *ConflictError
			return errors.As(err, &conflict), errString(err)
		})

		if err := c.Delete(ctx, tenant("ctl-b", nil)); err != nil {
			t.Fatal(err)
		}
		expectTenant(t, c, "ctl-a", []string{"ctl-a1", "ctl-a2", "ctl-x", "ctl-zz-not-yet"}, metav1.ConditionTrue, ReasonSelected, "")
	})

	t.Run("overlapping resource-group patterns show on both Tenants and clear", func(t *testing.T) {
		exclusive := func(name string) (*metav1.Condition, error) {
			var tn tenancyv1alpha1.Tenant
			if err := c.Get(ctx, client.ObjectKey{Name: name}, &tn); err != nil {
				return nil, err
			}
			return meta.FindStatusCondition(tn.Status.Conditions, ConditionResourceGroupsExclusive), nil
		}
		expect := func(name string, ok func(*metav1.Condition) bool) {
			t.Helper()
			testenv.Eventually(t, time.Minute, name+" "+ConditionResourceGroupsExclusive, func() (bool, string) {
				cond, err := exclusive(name)
				if err != nil {
					return false, err.Error()
				}
				return cond != nil && ok(cond), fmt.Sprint(cond)
			})
		}
		// Resource groups "ctl-a-x-*", inside ctl-a's "ctl-a-*".
		create(t, c, tenant("ctl-a-x", func(s *tenancyv1alpha1.TenantSpec) { s.Namespaces = []string{"ctl-a-x"} }))
		expect("ctl-a-x", func(cond *metav1.Condition) bool {
			return cond.Status == metav1.ConditionFalse && cond.Reason == ReasonResourceGroupsOverlap &&
				strings.Contains(cond.Message, `"ctl-a-x-*" and Tenant "ctl-a"'s "ctl-a-*" can match the same resource groups: they belong to this Tenant`)
		})
		expect("ctl-a", func(cond *metav1.Condition) bool {
			return cond.Status == metav1.ConditionFalse &&
				strings.Contains(cond.Message, `"ctl-a-*" and Tenant "ctl-a-x"'s "ctl-a-x-*" can match the same resource groups: they belong to Tenant "ctl-a-x"`)
		})
		if err := c.Delete(ctx, tenant("ctl-a-x", nil)); err != nil {
			t.Fatal(err)
		}
		expect("ctl-a", func(cond *metav1.Condition) bool { return !strings.Contains(cond.Message, "ctl-a-x") })
	})

	t.Run("a namespace losing the label leaves", func(t *testing.T) {
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: "ctl-a1"}, ns); err != nil {
			t.Fatal(err)
		}
		ns.Labels = map[string]string{"ctl-team": "other"}
		if err := c.Update(ctx, ns); err != nil {
			t.Fatal(err)
		}
		expectTenant(t, c, "ctl-a", []string{"ctl-a2", "ctl-x", "ctl-zz-not-yet"}, metav1.ConditionTrue, ReasonSelected, "3 namespace")
		testenv.Eventually(t, time.Minute, "directory to drop ctl-a1", func() (bool, string) {
			served, err := dir.Serves(ctx, "ctl-a1")
			return err == nil && !served, errString(err)
		})
	})

	t.Run("invalid selector", func(t *testing.T) {
		bad := tenant("ctl-bad", func(s *tenancyv1alpha1.TenantSpec) {
			s.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "ctl-team", Operator: "Bogus", Values: []string{"a"}},
			}}
		})
		if err := c.Create(ctx, bad); err != nil {
			if apierrors.IsInvalid(err) {
				// Refused at apply time is as good for the user as the condition.
				t.Logf("the API server refused the selector itself: %v", err)
				return
			}
			t.Fatal(err)
		}
		expectTenant(t, c, "ctl-bad", []string{}, metav1.ConditionFalse, ReasonInvalidSelector, "namespaceSelector")
	})

	t.Run("spec change bumps observedGeneration", func(t *testing.T) {
		var tn tenancyv1alpha1.Tenant
		if err := c.Get(ctx, client.ObjectKey{Name: "ctl-a"}, &tn); err != nil {
			t.Fatal(err)
		}
		tn.Spec.Namespaces = nil
		if err := c.Update(ctx, &tn); err != nil {
			t.Fatal(err)
		}
		expectTenant(t, c, "ctl-a", []string{"ctl-a2", "ctl-x"}, metav1.ConditionTrue, ReasonSelected, "2 namespace")
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
