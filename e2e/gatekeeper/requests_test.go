package gatekeeper

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// Library examples shaped as AdmissionReviews (the reservedserviceaccount
// template's: only a request carries the user, a TokenRequest's account and
// an update's previous version) are sent to the API server as the request
// they describe, so the webhook, the generated policies and offline
// evaluation judge the same request.

// admissionRequest decodes an AdmissionReview example's request.
func admissionRequest(u *unstructured.Unstructured) (*admissionv1.AdmissionRequest, error) {
	var ar admissionv1.AdmissionReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, &ar, true); err != nil {
		return nil, err
	}
	if ar.Request == nil {
		return nil, fmt.Errorf("AdmissionReview without a request")
	}
	return ar.Request, nil
}

func decodeRaw(t *testing.T, raw runtime.RawExtension) *unstructured.Unstructured {
	t.Helper()
	if raw.Raw == nil {
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw.Raw); err != nil {
		t.Fatal(err)
	}
	return u
}

// prepareLibraryExamples stores what the AdmissionReview examples act on,
// before any policy exists (as objects admitted before a constraint was):
// each UPDATE's oldObject, and the ServiceAccount of each TokenRequest.
func prepareLibraryExamples(t *testing.T, env *testenv.Env) {
	t.Helper()
	files, _ := libraryVerdicts(t)
	var accounts []client.ObjectKey
	for _, f := range files {
		req := f.request
		if req == nil {
			continue
		}
		createNamespace(t, env, req.Namespace)
		switch {
		case isTokenRequest(req):
			accounts = append(accounts, client.ObjectKey{Namespace: req.Namespace, Name: req.Name})
		case req.Operation == admissionv1.Update:
			old := decodeRaw(t, req.OldObject)
			if err := env.Client.Create(t.Context(), old); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("%s: store the oldObject: %v", f.path, err)
			}
		}
	}
	for _, k := range accounts {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: k.Name, Namespace: k.Namespace}}
		if err := env.Client.Create(t.Context(), sa); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("store ServiceAccount %s: %v", k, err)
		}
	}
}

func isTokenRequest(req *admissionv1.AdmissionRequest) bool {
	return req.Kind.Group == authenticationv1.GroupName && req.Kind.Kind == "TokenRequest"
}

var (
	clientsMu sync.Mutex
	clients   = map[string]client.Client{}
)

// as is env's admin impersonating user in system:masters, so that RBAC
// never answers before admission; "" is the admin itself.
func as(t *testing.T, env *testenv.Env, user string) (*rest.Config, client.Client) {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	if user != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters"}}
	}
	clientsMu.Lock()
	defer clientsMu.Unlock()
	key := fmt.Sprintf("%p/%s", env, user)
	if c, ok := clients[key]; ok {
		return cfg, c
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	clients[key] = c
	return cfg, c
}

// replayRequest sends an AdmissionReview example's request as its user, as
// a server-side dry run: a TokenRequest to the account's token subresource,
// a CREATE of its object, an UPDATE of the stored object (which must be its
// oldObject, see prepareLibraryExamples) to its object.
func replayRequest(t *testing.T, env *testenv.Env, req *admissionv1.AdmissionRequest) error {
	t.Helper()
	ctx := t.Context()
	cfg, c := as(t, env, req.UserInfo.Username)
	obj := decodeRaw(t, req.Object)
	dryRun := []string{metav1.DryRunAll}
	switch {
	case isTokenRequest(req):
		var tr authenticationv1.TokenRequest
		if err := json.Unmarshal(req.Object.Raw, &tr); err != nil {
			t.Fatal(err)
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CoreV1().ServiceAccounts(req.Namespace).CreateToken(ctx, req.Name, &tr, metav1.CreateOptions{DryRun: dryRun})
		return err
	case req.Operation == admissionv1.Create:
		return c.Create(ctx, obj, client.DryRunAll)
	case req.Operation == admissionv1.Update:
		old := decodeRaw(t, req.OldObject)
		stored := &unstructured.Unstructured{}
		stored.SetGroupVersionKind(obj.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
			t.Fatalf("the object an UPDATE example changes is not stored: %v", err)
		}
		if !equality.Semantic.DeepEqual(stored.GetAnnotations(), old.GetAnnotations()) || !equality.Semantic.DeepEqual(stored.GetLabels(), old.GetLabels()) {
			t.Fatalf("%s %s: the stored object's metadata differs from the example's oldObject (examples updating it must share one)", obj.GetKind(), obj.GetName())
		}
		obj.SetResourceVersion(stored.GetResourceVersion())
		return c.Update(ctx, obj, client.DryRunAll)
	}
	t.Fatalf("AdmissionReview of a %s %s: only TokenRequests, CREATE and UPDATE are replayed", req.Operation, req.Kind.Kind)
	return nil
}
