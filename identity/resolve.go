package identity

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity/reservation"
)

// Conventions shared with azure-workload-identity and with users' manifests.
const (
	// AnnotationIdentity on a resource selects an Identity of its namespace.
	AnnotationIdentity = "aztenant.io/identity"
	// DefaultIdentityName serves resources without the annotation.
	DefaultIdentityName = "default"
	// AnnotationClientID and AnnotationTenantID on a ServiceAccount are the
	// azure-workload-identity conventions for the identity it federates with.
	AnnotationClientID = "azure.workload.identity/client-id"
	AnnotationTenantID = "azure.workload.identity/tenant-id"
	// TokenAudience is the audience Entra ID expects on federated assertions.
	TokenAudience = "api://AzureADTokenExchange"
	// ProvisionerServiceAccount is the one ServiceAccount of a namespace that
	// the operator exchanges for the namespace's Azure identity. Admission
	// (package reservation) reserves it for the operator: nobody else may get
	// a token for it, run a pod as it or change its workload-identity
	// annotations, so the namespace's provisioning identity is reachable only
	// through the operator, its Tenant bounds and its policy.
	ProvisionerServiceAccount = reservation.ServiceAccountName
)

// CheckReserved refuses an Identity whose ServiceAccount is not the reserved
// provisioner account: any namespace editor can mint a token for another
// account (TokenRequest, a pod, a token Secret) and so act as the identity
// around the operator. allowUnreserved (the operator's
// --insecure-allow-unreserved-service-accounts) lifts the rule.
func CheckReserved(id *identityv1alpha1.Identity, allowUnreserved bool) error {
	if allowUnreserved || id.Spec.ServiceAccountName == ProvisionerServiceAccount {
		return nil
	}
	return errorf(ReasonServiceAccountNotReserved, nil,
		"Identity %s/%s names ServiceAccount %q, which anyone who may create pods or tokens in namespace %q can use to act as the Azure identity around aztenant; "+
			"aztenant exchanges only ServiceAccount %q, which admission reserves for the operator: set spec.serviceAccountName to it and federate the Azure identity with system:serviceaccount:%s:%s",
		id.Namespace, id.Name, id.Spec.ServiceAccountName, id.Namespace, ProvisionerServiceAccount, id.Namespace, ProvisionerServiceAccount)
}

// Resolved is everything needed to act as an Identity.
type Resolved struct {
	Namespace      string
	IdentityName   string
	ServiceAccount string
	// ServiceAccountUID tells a recreated ServiceAccount from the one cached.
	ServiceAccountUID types.UID
	ClientID          string
	TenantID          string
	SubscriptionID    string
}

// IdentityNameFor returns the name of the Identity that serves obj: the value
// of its aztenant.io/identity annotation, or "default". A value that is not a
// plain object name (it names a namespace, a path, ...) is refused: an Identity
// is only ever looked up in obj's own namespace.
func IdentityNameFor(obj client.Object) (string, error) {
	name, ok := obj.GetAnnotations()[AnnotationIdentity]
	if !ok {
		return DefaultIdentityName, nil
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", errorf(ReasonInvalidIdentityReference, nil,
			"annotation %s=%q is not the name of an Identity in namespace %q: it must be a plain name, without a namespace or '/' (%s)",
			AnnotationIdentity, name, obj.GetNamespace(), errs[0])
	}
	return name, nil
}

// Resolve finds the Identity serving obj and its ServiceAccount, both in obj's
// namespace, and fills in client and tenant IDs from the ServiceAccount's
// workload-identity annotations where the Identity leaves them empty. An
// Identity naming another ServiceAccount than the reserved one is refused
// (CheckReserved) unless allowUnreserved.
func Resolve(ctx context.Context, r client.Reader, obj client.Object, allowUnreserved bool) (*Resolved, error) {
	name, err := IdentityNameFor(obj)
	if err != nil {
		return nil, err
	}
	ns := obj.GetNamespace()
	var id identityv1alpha1.Identity
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &id); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, errorf(ReasonIdentityNotFound, err,
				"no Identity %q in namespace %q: a platform admin grants the namespace an Azure identity by creating it (aztenant never falls back to the operator's own identity)", name, ns)
		}
		return nil, fmt.Errorf("read Identity %s/%s: %w", ns, name, err)
	}
	if err := CheckReserved(&id, allowUnreserved); err != nil {
		return nil, err
	}
	return ResolveIdentity(ctx, r, &id)
}

// ResolveIdentity completes an Identity with its ServiceAccount's annotations.
func ResolveIdentity(ctx context.Context, r client.Reader, id *identityv1alpha1.Identity) (*Resolved, error) {
	ns, saName := id.Namespace, id.Spec.ServiceAccountName
	var sa corev1.ServiceAccount
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: saName}, &sa); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, errorf(ReasonServiceAccountNotFound, err,
				"Identity %s/%s names ServiceAccount %q, which does not exist in namespace %q", ns, id.Name, saName, ns)
		}
		return nil, fmt.Errorf("read ServiceAccount %s/%s: %w", ns, saName, err)
	}
	res := &Resolved{
		Namespace:         ns,
		IdentityName:      id.Name,
		ServiceAccount:    saName,
		ServiceAccountUID: sa.UID,
		ClientID:          id.Spec.ClientID,
		TenantID:          id.Spec.TenantID,
		SubscriptionID:    id.Spec.SubscriptionID,
	}
	if res.ClientID == "" {
		res.ClientID = sa.Annotations[AnnotationClientID]
	}
	if res.TenantID == "" {
		res.TenantID = sa.Annotations[AnnotationTenantID]
	}
	if res.ClientID == "" {
		return nil, errorf(ReasonMissingClientID, nil,
			"Identity %s/%s has no clientID and ServiceAccount %q has no %s annotation: set one of them to the Azure identity's client ID", ns, id.Name, saName, AnnotationClientID)
	}
	if res.TenantID == "" {
		return nil, errorf(ReasonMissingTenantID, nil,
			"Identity %s/%s has no tenantID and ServiceAccount %q has no %s annotation: set one of them to the Entra ID tenant ID", ns, id.Name, saName, AnnotationTenantID)
	}
	return res, nil
}
