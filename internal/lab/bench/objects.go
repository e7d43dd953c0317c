package bench

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
)

// ResourceGroup is a resource group in ns (its name must start with ns+"-"
// for the namespace's Tenant to allow it).
func ResourceGroup(ns, name string, tags map[string]string) *resourcesv1alpha1.ResourceGroup {
	return &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: resourcesv1alpha1.ResourceGroupSpec{Location: Location, Tags: tags}}
}

// StorageAccount is a StorageV2 account in resource group rg of ns. Account
// names are global in Azure: 3 to 24 lowercase letters and digits.
func StorageAccount(ns, name, rg string) *storagev1alpha1.StorageAccount {
	return &storagev1alpha1.StorageAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: storagev1alpha1.StorageAccountSpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: Location,
			Kind: "StorageV2", Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}, MinimumTLSVersion: "TLS1_2"}}
}

// UserAssignedIdentity is a managed identity in resource group rg of ns.
func UserAssignedIdentity(ns, name, rg string) *managedidentityv1alpha1.UserAssignedIdentity {
	return &managedidentityv1alpha1.UserAssignedIdentity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: Location}}
}

// FederatedIdentityCredential trusts issuer's subject for the identity uai of ns.
func FederatedIdentityCredential(ns, name, uai, issuer, subject string) *managedidentityv1alpha1.FederatedIdentityCredential {
	return &managedidentityv1alpha1.FederatedIdentityCredential{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{Owner: &azurev1alpha1.OwnerReference{Name: uai},
			Issuer: issuer, Subject: subject}}
}

// ResourceGroupID is the ARM ID of a resource group in the stack's subscription.
func ResourceGroupID(name string) string {
	return "/subscriptions/" + SubscriptionID + "/resourceGroups/" + name
}

// CreateAll creates objs with at most workers requests in flight, as a team
// applying many manifests at once does. Objects that exist already are left
// alone.
func CreateAll(ctx context.Context, c client.Client, workers int, objs []client.Object) error {
	if workers < 1 {
		workers = 1
	}
	work := make(chan client.Object)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("create %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, o := range objs {
		select {
		case work <- o:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
