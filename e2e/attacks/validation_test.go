package attacks_test

import (
	"fmt"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
)

// Oversized specs, to make every reconcile (and every ARM body) expensive or
// to smuggle a large payload: the API server refuses each before the
// operator sees it.
func TestAttack_OversizedSpec(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "big")
	tags := map[string]string{}
	for i := range 51 {
		tags[fmt.Sprintf("t%02d", i)] = "x"
	}
	manyTags := stacktest.ResourceGroup(a.attacker, a.attacker+"-tags", nil, tags)
	rejected(t, a.Client.Create(t.Context(), manyTags), "spec.tags", "must have at most 50 items")

	longTag := stacktest.ResourceGroup(a.attacker, a.attacker+"-long", nil, map[string]string{"t": strings.Repeat("x", 257)})
	rejected(t, a.Client.Create(t.Context(), longTag), "spec.tags")

	longExpr := stacktest.ResourceGroup(a.attacker, a.attacker+"-expr", nil, nil)
	longExpr.Spec.OperatorSpec = &resourcesv1alpha1.ResourceGroupOperatorSpec{OperatorExpressions: azurev1alpha1.OperatorExpressions{
		ConfigMapExpressions: []azurev1alpha1.DestinationExpression{{Name: "x", Key: "y", Value: `"` + strings.Repeat("x", 5000) + `"`}},
	}}
	rejected(t, a.Client.Create(t.Context(), longExpr), "spec.operatorSpec.configMapExpressions[0].value", "may not be more than 4096")

	manyExprs := stacktest.ResourceGroup(a.attacker, a.attacker+"-exprs", nil, nil)
	var es []azurev1alpha1.DestinationExpression
	for i := range 33 {
		es = append(es, azurev1alpha1.DestinationExpression{Name: "x", Key: fmt.Sprintf("k%d", i), Value: `"v"`})
	}
	manyExprs.Spec.OperatorSpec = &resourcesv1alpha1.ResourceGroupOperatorSpec{OperatorExpressions: azurev1alpha1.OperatorExpressions{ConfigMapExpressions: es}}
	rejected(t, a.Client.Create(t.Context(), manyExprs), "spec.operatorSpec.configMapExpressions", "must have at most 32 items")

	a.contained(t)
	a.noWrite(t)
}
