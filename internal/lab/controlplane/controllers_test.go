package controlplane_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// With Controllers set, the cluster's own lifecycle runs as in a real
// cluster: the garbage collector deletes an object whose owner is gone, a
// deleted namespace empties and goes, and Kubernetes' aggregated edit role is
// filled.
func TestControllerManagerLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{Controllers: controlplane.ControllersLifecycle})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	cs := kubernetes.NewForConfigOrDie(cp.Config)
	poll := func(what string, cond func(context.Context) (bool, error)) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, cond); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	owner, err := cs.CoreV1().ConfigMaps("gc").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dependent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	if _, err := cs.CoreV1().Secrets("gc").Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps("gc").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("the garbage collector deletes the dependent", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Secrets("gc").Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})

	if err := cs.CoreV1().Namespaces().Delete(ctx, "gc", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("the namespace finishes terminating", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "gc", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})

	poll("the edit role is aggregated", func(ctx context.Context) (bool, error) {
		r, err := cs.RbacV1().ClusterRoles().Get(ctx, "edit", metav1.GetOptions{})
		return err == nil && len(r.Rules) > 0, nil
	})
}

// The start-up cost of kube-controller-manager, to decide which packages
// start it: prints the time to a ready control plane without and with it.
func BenchmarkStart(b *testing.B) {
	for _, tc := range []struct {
		name        string
		controllers []string
	}{{"apiserver", nil}, {"apiserver+controller-manager", controlplane.ControllersLifecycle}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				cp, err := controlplane.Start(b.Context(), controlplane.Options{Controllers: tc.controllers})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cp.Stop()
				b.StartTimer()
			}
		})
	}
}
