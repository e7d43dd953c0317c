package onboarding

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// ensureServiceAccount makes the namespace's ServiceAccount carry the managed
// identity's workload-identity annotations. A ServiceAccount onboarding did
// not create is used only if it already names this identity: rewriting a
// team's own annotations would silently change who its pods are in Azure.
func (s *pass) ensureServiceAccount(ctx context.Context, ns, name string, mi *managedIdentity) (string, bool, error) {
	id := ns + "/" + name
	want := map[string]string{identity.AnnotationClientID: mi.clientID, identity.AnnotationTenantID: mi.tenantID}
	var sa corev1.ServiceAccount
	err := s.r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &sa)
	if apierrors.IsNotFound(err) {
		sa = corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, Labels: map[string]string{LabelOnboardedBy: s.t.Name}, Annotations: want,
		}}
		return id, true, s.r.Client.Create(ctx, &sa)
	}
	if err != nil {
		return "", false, err
	}
	ours := sa.Labels[LabelOnboardedBy] == s.t.Name
	if sa.Annotations[identity.AnnotationClientID] == mi.clientID && sa.Annotations[identity.AnnotationTenantID] == mi.tenantID {
		return id, ours, nil
	}
	if !ours {
		return "", false, &StepError{Reason: ReasonConflict, Message: fmt.Sprintf(
			"ServiceAccount %s exists, was not created by onboarding and does not name client ID %s: delete it or set onboarding.serviceAccountName", id, mi.clientID)}
	}
	base := sa.DeepCopy()
	if sa.Annotations == nil {
		sa.Annotations = map[string]string{}
	}
	for k, v := range want {
		sa.Annotations[k] = v
	}
	return id, true, s.r.Client.Patch(ctx, &sa, client.MergeFrom(base))
}

// ensureIdentity makes the namespace's "default" Identity use the
// ServiceAccount, on the same conditions as ensureServiceAccount.
func (s *pass) ensureIdentity(ctx context.Context, ns, saName, subscription string, mi *managedIdentity) (string, bool, error) {
	id := ns + "/" + identity.DefaultIdentityName
	want := identityv1alpha1.IdentitySpec{ServiceAccountName: saName, SubscriptionID: subscription}
	var obj identityv1alpha1.Identity
	err := s.r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: identity.DefaultIdentityName}, &obj)
	if apierrors.IsNotFound(err) {
		obj = identityv1alpha1.Identity{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: identity.DefaultIdentityName, Labels: map[string]string{LabelOnboardedBy: s.t.Name}},
			Spec:       want,
		}
		return id, true, s.r.Client.Create(ctx, &obj)
	}
	if err != nil {
		return "", false, err
	}
	ours := obj.Labels[LabelOnboardedBy] == s.t.Name
	same := obj.Spec.ServiceAccountName == saName && obj.Spec.SubscriptionID == subscription &&
		(obj.Spec.ClientID == "" || obj.Spec.ClientID == mi.clientID) && (obj.Spec.TenantID == "" || obj.Spec.TenantID == mi.tenantID)
	if same {
		return id, ours, nil
	}
	if !ours {
		return "", false, &StepError{Reason: ReasonConflict, Message: fmt.Sprintf(
			"Identity %s exists, was not created by onboarding and does not use ServiceAccount %q in subscription %s: delete it to let onboarding create it", id, saName, subscription)}
	}
	base := obj.DeepCopy()
	obj.Spec = want
	return id, true, s.r.Client.Patch(ctx, &obj, client.MergeFrom(base))
}
