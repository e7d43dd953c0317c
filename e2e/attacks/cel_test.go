package attacks_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

// withExpression is a resource group of the attacker exporting one CEL
// expression to a Secret or a ConfigMap named "loot".
func withExpression(a *attack, name string, secret bool, expr string) *resourcesv1alpha1.ResourceGroup {
	rg := stacktest.ResourceGroup(a.attacker, name, nil, map[string]string{"a": "1", "b": "2", "c": "3"})
	d := []azurev1alpha1.DestinationExpression{{Name: "loot", Key: "x", Value: expr}}
	ops := azurev1alpha1.OperatorExpressions{ConfigMapExpressions: d}
	if secret {
		ops = azurev1alpha1.OperatorExpressions{SecretExpressions: d}
	}
	rg.Spec.OperatorSpec = &resourcesv1alpha1.ResourceGroupOperatorSpec{OperatorExpressions: ops}
	return rg
}

// expressionRefused waits for ExpressionFailed naming want, checks it is
// Stalled (retrying cannot help) and that nothing was exported.
func expressionRefused(t *testing.T, a *attack, rg *resourcesv1alpha1.ResourceGroup, want string) {
	t.Helper()
	a.denied(t, rg, reconcilers.ReasonExpressionFailed, want)
	if c := meta.FindStatusCondition(rg.Status.Conditions, reconcilers.ConditionStalled); c == nil || c.Status != metav1.ConditionTrue {
		t.Error("a refused expression should be Stalled")
	}
	for _, obj := range []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}} {
		if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: "loot"}, obj); !apierrors.IsNotFound(err) {
			t.Errorf("%T loot: %v, want it not to exist", obj, err)
		}
	}
}

// A Secret expression reaching for the victim's Secrets: the environment has
// no function or variable that reads anything but the resource itself.
func TestAttack_CELReadsOtherSecrets(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "celread")
	rg := withExpression(a, a.attacker+"-rg", true, `kubernetes.secrets("`+a.victim+`").data["token"]`)
	a.Create(t, rg)
	expressionRefused(t, a, rg, "undeclared reference to 'kubernetes'")
	a.contained(t)
}

// A ConfigMap expression copying the resource's keys out of Secrets into a
// ConfigMap, which many more people can read.
func TestAttack_CELLeaksSecretIntoConfigMap(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "celleak")
	rg := withExpression(a, a.attacker+"-rg", false, `secret.key1`)
	a.Create(t, rg)
	expressionRefused(t, a, rg, "configMap expressions cannot read `secret`")
	a.contained(t)
}

// Nested comprehensions over the resource, to burn the operator's CPU for
// every tenant: refused when compiled, from the worst-case cost estimate; the
// namespace's next resource is served at once.
func TestAttack_CELExhaustsCPU(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "celcpu")
	rg := withExpression(a, a.attacker+"-rg", false,
		`self.spec.tags.map(a, self.spec.tags.map(b, self.spec.tags.map(c, self.spec.tags.map(d, a + b + c + d)))).size() > 0 ? "y" : "n"`)
	a.Create(t, rg)
	expressionRefused(t, a, rg, "estimated worst-case cost")
	next := stacktest.ResourceGroup(a.attacker, a.attacker+"-next", nil, nil)
	start := time.Now()
	a.ready(t, next)
	t.Logf("the next resource group was Ready %v after it was created", time.Since(start).Round(time.Millisecond))
	a.contained(t)
}

// A string that doubles at every step, to exhaust the operator's memory: the
// evaluation is stopped before the string is built.
func TestAttack_CELExhaustsMemory(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "celmem")
	rg := withExpression(a, a.attacker+"-rg", false,
		`"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".replace("a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").replace("a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").replace("a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")`)
	a.Create(t, rg)
	a.denied(t, rg, reconcilers.ReasonExpressionFailed, "would build a string of", "more than the limit")
	if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: "loot"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap loot: %v, want it not to exist", err)
	}
	a.contained(t)
}
