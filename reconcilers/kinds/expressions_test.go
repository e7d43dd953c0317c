package kinds_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// secretExpressions and configMapExpressions compute exports with CEL from
// the resource and, for Secrets only, its secret outputs; a broken expression
// is reported with its position and stalls until the spec changes.
func TestCELExports(t *testing.T) {
	t.Parallel()
	const ns = "cel"
	s := newStack(t, ns)
	ctx := t.Context()

	rg := resourceGroup(ns, "cel-rg", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	sa := &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "celapp"},
		Spec: storagev1alpha1.StorageAccountSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "cel-rg"}, Location: "westeurope", Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{OperatorExpressions: azurev1alpha1.OperatorExpressions{
				SecretExpressions: []azurev1alpha1.DestinationExpression{{
					Name: "celapp-conn", Key: "connectionString",
					Value: `"DefaultEndpointsProtocol=https;AccountName=" + self.metadata.name + ";AccountKey=" + secret.key1`,
				}},
				ConfigMapExpressions: []azurev1alpha1.DestinationExpression{
					{Name: "celapp-info", Key: "id", Value: `self.status.id`},
					{Name: "celapp-info", Value: `{"location": self.spec.location, "owner": self.spec.owner.name}`},
				},
			}},
		},
	}
	s.Create(t, sa)
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// The child points at its owner, so Kubernetes deletes children with parents.
	if refs := sa.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != rg.UID || refs[0].Kind != "ResourceGroup" {
		t.Errorf("ownerReferences %+v, want the ResourceGroup", refs)
	}

	var secret corev1.Secret
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "celapp-conn"}, &secret))
	conn := string(secret.Data["connectionString"])
	if !strings.HasPrefix(conn, "DefaultEndpointsProtocol=https;AccountName=celapp;AccountKey=") || strings.HasSuffix(conn, "AccountKey=") {
		t.Errorf("connection string %q", conn)
	}
	if !metav1.IsControlledBy(&secret, sa) {
		t.Error("the Secret is not owned by the storage account")
	}
	var cm corev1.ConfigMap
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "celapp-info"}, &cm))
	if cm.Data["id"] != sa.Status.ID || cm.Data["location"] != "westeurope" || cm.Data["owner"] != "cel-rg" {
		t.Errorf("ConfigMap data %v", cm.Data)
	}
	for _, v := range cm.Data {
		if strings.Contains(v, "AccountKey") {
			t.Error("a ConfigMap received a secret")
		}
	}

	// A ConfigMap expression may not read secrets, and a typo is reported with
	// its position; both stall until the spec changes.
	bad := []struct{ value, want string }{
		{`secret.key1`, "secret"},
		{`self.status.id +`, "configMapExpressions[0]"},
	}
	for i, b := range bad {
		rg2 := resourceGroup(ns, fmt.Sprintf("cel-bad-%d", i), nil, nil)
		rg2.Spec.OperatorSpec = &resourcesv1alpha1.ResourceGroupOperatorSpec{OperatorExpressions: azurev1alpha1.OperatorExpressions{
			ConfigMapExpressions: []azurev1alpha1.DestinationExpression{{Name: "x", Key: "y", Value: b.value}},
		}}
		s.Create(t, rg2)
		s.WaitReady(t, rg2, metav1.ConditionFalse, reconcilers.ReasonExpressionFailed)
		c := meta.FindStatusCondition(rg2.Status.Conditions, "Ready")
		if !strings.Contains(c.Message, b.want) {
			t.Errorf("%q: message %q lacks %q", b.value, c.Message, b.want)
		}
		if st := meta.FindStatusCondition(rg2.Status.Conditions, reconcilers.ConditionStalled); st == nil || st.Status != metav1.ConditionTrue {
			t.Errorf("%q: a compile error should stall", b.value)
		}
		var none corev1.ConfigMap
		if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "x"}, &none); err == nil {
			t.Errorf("%q: a ConfigMap was written despite the error", b.value)
		}
	}
}
