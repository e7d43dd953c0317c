package reservation

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// PoliciesYAML is the ValidatingAdmissionPolicies, as the chart ships them.
//
//go:embed policies.yaml
var PoliciesYAML []byte

// ServiceAccountName is the reserved provisioner account of every namespace
// (ServiceAccountName); policies.yaml spells it out.
const ServiceAccountName = "aztenant-provisioner"

// annotationClientID is azure-workload-identity's client-id annotation.
const annotationClientID = "azure.workload.identity/client-id"

// ParamsName is the ConfigMap (in the operator's namespace) whose
// data.usernames lists, comma separated, the users that act as the operator.
const ParamsName = "aztenant-operator-users"

// ParamsKey is the key of ParamsName's data holding the user names.
const ParamsKey = "usernames"

// Policies decodes PoliciesYAML.
func Policies() ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	var out []*admissionregistrationv1.ValidatingAdmissionPolicy
	for _, doc := range bytes.Split(PoliciesYAML, []byte("\n---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var p admissionregistrationv1.ValidatingAdmissionPolicy
		if err := yaml.UnmarshalStrict(doc, &p); err != nil {
			return nil, fmt.Errorf("reservation policies: %w", err)
		}
		out = append(out, &p)
	}
	if len(out) == 0 {
		return nil, errors.New("reservation policies: none in policies.yaml")
	}
	return out, nil
}

// Objects are what Install creates: the policies, a binding for each (its
// parameter, where it takes one, the ConfigMap ParamsName in namespace), and
// that ConfigMap naming operators.
func Objects(namespace string, operators []string) ([]client.Object, error) {
	if len(operators) == 0 {
		return nil, errors.New("reservation: no operator user names")
	}
	for _, u := range operators {
		if u == "" || strings.ContainsAny(u, ", ") {
			return nil, fmt.Errorf("reservation: operator user name %q must be non-empty, without commas or spaces", u)
		}
	}
	policies, err := Policies()
	if err != nil {
		return nil, err
	}
	objs := []client.Object{&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ParamsName, Namespace: namespace},
		Data:       map[string]string{ParamsKey: strings.Join(operators, ",")},
	}}
	for _, p := range policies {
		objs = append(objs, p)
	}
	for _, p := range policies {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        p.Name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}
		if p.Spec.ParamKind != nil {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{
				Name: ParamsName, Namespace: namespace,
				ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction),
			}
		}
		objs = append(objs, b)
	}
	return objs, nil
}

// Install creates or replaces Objects on the API server behind c (and
// namespace, if missing). The API
// server applies a new policy within a second or so (it watches them); call
// WaitEnforced to know it does.
func Install(ctx context.Context, c client.Client, namespace string, operators []string) error {
	objs, err := Objects(namespace, operators)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("install: namespace %s for the parameters: %w", namespace, err)
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("install %T %s: %w", o, o.GetName(), err)
			}
			existing := o.DeepCopyObject().(client.Object)
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), existing); err != nil {
				return err
			}
			o.SetResourceVersion(existing.GetResourceVersion())
			if err := c.Update(ctx, o); err != nil {
				return fmt.Errorf("update %T %s: %w", o, o.GetName(), err)
			}
		}
	}
	return nil
}

// WaitEnforced polls until the API server behind c (whose user must not be
// an operator) refuses, in a server-side dry run in namespace, a pod running
// as the provisioner account and that account with a workload-identity
// annotation: the API server loads policies, bindings and parameters through
// informers, a moment after Install.
func WaitEnforced(ctx context.Context, c client.Client, namespace string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "aztenant-reservation-probe", Namespace: namespace},
		Spec: corev1.PodSpec{ServiceAccountName: ServiceAccountName,
			Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ServiceAccountName, Namespace: namespace,
		Annotations: map[string]string{annotationClientID: "00000000-0000-0000-0000-000000000000"}}}
	refused := func(o client.Object) bool {
		err := c.Create(ctx, o.DeepCopyObject().(client.Object), client.DryRunAll)
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "reserved for the aztenant operator")
	}
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		return refused(pod) && refused(sa), nil
	}); err != nil {
		return fmt.Errorf("the API server does not enforce the provisioner account's reservation yet: %w", err)
	}
	return nil
}
