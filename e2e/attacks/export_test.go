package attacks_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

// A storage account exporting its key into a Secret that another workload of
// the namespace owns (here the database password of an app): the operator
// would overwrite it and take it over.
func TestAttack_SecretExportOverwritesForeignSecret(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "expow")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "app-db"}, StringData: map[string]string{"password": "s3cret"}})
	a.begin()
	sa := storageAccount(a.attacker, "expowkeys", azurev1alpha1.OwnerReference{Name: rg})
	sa.Spec.OperatorSpec = &storagev1alpha1.StorageAccountOperatorSpec{Secrets: &storagev1alpha1.StorageAccountOperatorSecrets{
		Key1: &azurev1alpha1.SecretDestination{Name: "app-db", Key: "password"},
	}}
	a.Create(t, sa)
	a.denied(t, sa, reconcilers.ReasonExportConflict, `Secret "app-db" exists and is not owned by this resource`)
	var sec corev1.Secret
	if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.attacker, Name: "app-db"}, &sec); err != nil {
		t.Fatal(err)
	}
	if string(sec.Data["password"]) != "s3cret" || len(sec.OwnerReferences) != 0 {
		t.Errorf("the Secret was changed: password %q, owners %v", sec.Data["password"], sec.OwnerReferences)
	}
	a.contained(t)
}

// An export destination written as namespace/name, to drop the attacker's
// data into (or overwrite a Secret of) the victim's namespace.
func TestAttack_SecretExportIntoAnotherNamespace(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "expns")
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", nil, nil)
	rg.Spec.OperatorSpec = &resourcesv1alpha1.ResourceGroupOperatorSpec{OperatorExpressions: azurev1alpha1.OperatorExpressions{
		SecretExpressions: []azurev1alpha1.DestinationExpression{{Name: a.victim + "/azure-creds", Key: "token", Value: `"planted"`}},
	}}
	a.Create(t, rg)
	a.denied(t, rg, reconcilers.ReasonInvalidSpec, a.victim+"/azure-creds")
	if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: a.victim, Name: "azure-creds"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret azure-creds in the victim's namespace: %v, want it not to exist", err)
	}
	a.contained(t)
}
