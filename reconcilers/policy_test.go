package reconcilers

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

func namespace(annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Annotations: annotations}}
}

// The policy of an object being deleted is the one in force now: the
// namespace is read from the API server, not from a cache that may not have
// its latest annotation yet; a namespace that cannot be read stops the
// deletion (retried) instead of falling back to the default.
func TestDeletionReadsThePolicyAfresh(t *testing.T) {
	ctx := context.Background()
	stale := fake.NewClientBuilder().WithObjects(namespace(nil)).Build()
	current := fake.NewClientBuilder().WithObjects(namespace(map[string]string{AnnotationReconcilePolicy: "detach-on-delete"})).Build()
	r := &Reconciler{Client: stale, APIReader: current, Settings: Settings{DefaultPolicy: PolicyManage}}
	rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rg"}}

	if p, err := r.policyFor(ctx, rg); err != nil || p != PolicyManage {
		t.Errorf("not deleting: %s, %v; want manage from the cache", p, err)
	}
	now := metav1.Now()
	rg.DeletionTimestamp = &now
	if p, err := r.policyFor(ctx, rg); err != nil || p != PolicyDetachOnDelete {
		t.Errorf("deleting: %s, %v; want detach-on-delete, the namespace's annotation as it is now", p, err)
	}
	rg.Annotations = map[string]string{AnnotationReconcilePolicy: "manage"}
	if p, err := r.policyFor(ctx, rg); err != nil || p != PolicyManage {
		t.Errorf("deleting, the object says manage: %s, %v", p, err)
	}
	rg.Annotations = nil

	r.APIReader = fake.NewClientBuilder().WithObjects(namespace(nil)).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return errors.New("connection refused")
		},
	}).Build()
	_, err := r.policyFor(ctx, rg)
	var invalid *invalidPolicyError
	if err == nil || errors.As(err, &invalid) {
		t.Errorf("deleting, namespace unreadable: %v; want an error to retry, not InvalidSpec", err)
	}

	r.APIReader = fake.NewClientBuilder().WithObjects(namespace(map[string]string{AnnotationReconcilePolicy: "keep"})).Build()
	if _, err := r.policyFor(ctx, rg); !errors.As(err, &invalid) {
		t.Errorf("a bad annotation on the namespace: %v, want an invalidPolicyError (InvalidSpec)", err)
	}
}
