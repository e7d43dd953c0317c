package kinds

import (
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// defaultFICAudience is what Entra ID expects in exchanged tokens unless told otherwise.
const defaultFICAudience = "api://AzureADTokenExchange"

// FederatedIdentityCredential adapts
// Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials,
// a child of its user-assigned identity. It has no location and no tags.
// Azure refuses a credential written while another of the same identity is
// (ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity):
// the reconciler classifies that ARM error as transient and writes again a
// moment later (reconcilers/errors.go), so the kind needs no hook for it.
type FederatedIdentityCredential struct{}

var _ reconcilers.Kind = FederatedIdentityCredential{}

func (FederatedIdentityCredential) New() azurev1alpha1.Resource {
	return &managedidentityv1alpha1.FederatedIdentityCredential{}
}
func (FederatedIdentityCredential) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials",
		APIVersion:   "2023-01-31",
		OwnerKind:    managedidentityv1alpha1.UserAssignedIdentityGroupKind,
	}
}
func (FederatedIdentityCredential) Hooks() reconcilers.Hooks { return reconcilers.Hooks{} }

func (FederatedIdentityCredential) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	fic := obj.(*managedidentityv1alpha1.FederatedIdentityCredential)
	audiences := fic.Spec.Audiences
	if len(audiences) == 0 {
		// Azure requires exactly one; the API server defaults it, this covers
		// objects written before the default existed.
		audiences = []string{defaultFICAudience}
	}
	return map[string]any{"properties": map[string]any{
		"issuer":    fic.Spec.Issuer,
		"subject":   fic.Spec.Subject,
		"audiences": audiences,
	}}, nil
}

// Observe has nothing to copy: the credential has no outputs besides its ID.
func (FederatedIdentityCredential) Observe(azurev1alpha1.Resource, map[string]any) {}
