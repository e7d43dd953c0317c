package kinds

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
)

// defaultFICAudience is what Entra ID expects in exchanged tokens unless told otherwise.
const defaultFICAudience = "api://AzureADTokenExchange"

// FederatedIdentityCredential adapts
// Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials,
// a child of its user-assigned identity. It has no location and no tags.
type FederatedIdentityCredential struct{}

func (FederatedIdentityCredential) New() azurev1alpha1.Resource {
	return &managedidentityv1alpha1.FederatedIdentityCredential{}
}
func (FederatedIdentityCredential) ResourceType() string {
	return "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"
}
func (FederatedIdentityCredential) APIVersion() string { return "2023-01-31" }
func (FederatedIdentityCredential) OwnerKind() schema.GroupKind {
	return managedidentityv1alpha1.UserAssignedIdentityGroupKind
}

func (FederatedIdentityCredential) Desired(obj azurev1alpha1.Resource) (map[string]any, error) {
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
