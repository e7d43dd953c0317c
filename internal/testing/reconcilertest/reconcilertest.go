// Package reconcilertest runs the generic reconciler of one kind against the
// in-process Azure emulator, with a fake API server (controller-runtime's fake
// client): no control plane, no manager, no timers. A test calls Sync as the
// controller would, and reads the emulator's audit log and the object.
//
// Azure answering a write its own way (a value it forces, rewrites, adds or
// never returns) is played by Answers, which changes a PUT's body on its way
// to the emulator, so the emulator stores, answers and lists what Azure
// would; a portal edit is the emulator's PatchResource. Neither changes the
// emulator.
//
// It is part of the test harness (internal/testing), which nothing shipped
// imports.
package reconcilertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aztenant/aztenant/api"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers"
)

// The emulator's directory: one tenant, one subscription, one principal with
// Owner on it, whose credential every object's calls use.
const (
	TenantID       = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	SubscriptionID = "00000000-0000-0000-0000-0000000000cc"
	ClientID       = "dddddddd-0000-0000-0000-0000000000cc"
	clientSecret   = "reconcilertest-secret"
	// Namespace holds the test's objects.
	Namespace = "team"
)

// Env is the emulator, the fake API server and the kind under test.
type Env struct {
	Emu      *emulator.Emulator
	Client   client.Client
	Scheme   *k8sruntime.Scheme
	Registry *reconcilers.Registry
	Kind     reconcilers.Kind
	// Recorder gets the reconcilers' events.
	Recorder *events.FakeRecorder
	// Answers plays Azure's own answers to writes.
	Answers *Answers
	arm     *arm.Client

	mu sync.Mutex
	// failAfterWrite: the first status patch after the next PUT fails;
	// failing: that one is next.
	failAfterWrite, failing bool
}

// New starts an emulator and a fake API server holding the namespace and
// objs, for kind (registered with the registry alone).
func New(t testing.TB, kind reconcilers.Kind, objs ...client.Object) *Env {
	t.Helper()
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:       []emulator.Tenant{{ID: TenantID}},
		Subscriptions: []emulator.Subscription{{ID: SubscriptionID, TenantID: TenantID}},
		Principals: []emulator.Principal{{ClientID: ClientID, TenantID: TenantID, ClientSecret: clientSecret,
			Roles: []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + SubscriptionID}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	e := &Env{Emu: emu, Kind: kind, Recorder: events.NewFakeRecorder(100)}
	e.Answers = &Answers{onWrite: func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.failAfterWrite {
			e.failAfterWrite, e.failing = false, true
		}
	}}
	cred, err := azidentity.NewClientSecretCredential(TenantID, ClientID, clientSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := emu.ClientOptions()
	opts.PerCallPolicies = []policy.Policy{e.Answers}
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	if e.arm, err = arm.NewClient("reconcilertest", "v0.1.0", cred, &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true}); err != nil {
		t.Fatal(err)
	}
	e.Scheme = k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(e.Scheme); err != nil {
		t.Fatal(err)
	}
	if err := api.AddToScheme(e.Scheme); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(e.Scheme); err != nil {
		t.Fatal(err)
	}
	if e.Registry, err = reconcilers.NewRegistry(e.Scheme, kind); err != nil {
		t.Fatal(err)
	}
	all := append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}}, objs...)
	gvk, err := apiutil.GVKForObject(kind.New(), e.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gvk.GroupVersion()})
	mapper.Add(gvk, meta.RESTScopeNamespace)
	e.Client = fake.NewClientBuilder().WithScheme(e.Scheme).WithRESTMapper(mapper).WithObjects(all...).WithStatusSubresource(kind.New(), &planv1alpha1.Plan{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			e.mu.Lock()
			fail := sub == "status" && e.failing
			if fail {
				e.failing = false
			}
			e.mu.Unlock()
			if fail {
				return errStatusPatch
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	// The kind's CRD, as installed: a deletion reads it (a CRD being deleted
	// leaves its objects' resources in Azure).
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: plural.Resource + "." + gvk.Group}}
	if err := e.Client.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	return e
}

// FailStatusPatchAfterWrite fails the first status patch after the next PUT,
// as an API server unavailable (or an operator stopped) between Azure
// accepting a write and the reconcile writing the object's status.
func (e *Env) FailStatusPatchAfterWrite() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failAfterWrite = true
}

type statusPatchError struct{}

func (statusPatchError) Error() string { return "status patch failed (reconcilertest)" }

var errStatusPatch = statusPatchError{}

// Reconciler is a new reconciler of the kind, as after an operator restart
// (nothing in memory): drift checks by GET unless listings is set.
func (e *Env) Reconciler(listings bool) *reconcilers.Reconciler {
	return &reconcilers.Reconciler{
		Client: e.Client, Kind: e.Kind, Registry: e.Registry, Broker: broker{e.arm},
		Recorder: e.Recorder, Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 10 * time.Millisecond,
			DefaultPolicy: reconcilers.PolicyManage, GetDriftChecks: !listings},
	}
}

type broker struct{ cl *arm.Client }

func (b broker) ARMClientFor(_ context.Context, obj client.Object) (*arm.Client, identity.Scope, error) {
	return b.cl, identity.Scope{Namespace: obj.GetNamespace(), Identity: "default", ClientID: ClientID, TenantID: TenantID, SubscriptionID: SubscriptionID}, nil
}

// Sync reconciles obj once with r, as the controller would on an event or a
// resync, and leaves obj as stored after it. A status patch failed on
// purpose (FailStatusPatchAfterWrite) is no error.
func (e *Env) Sync(t testing.TB, r *reconcilers.Reconciler, obj azurev1alpha1.Resource) reconcile.Result {
	t.Helper()
	res, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	if err != nil && err != errStatusPatch {
		t.Fatalf("reconcile %s: %v", obj.GetName(), err)
	}
	if err := e.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	return res
}

// Writes counts the PUTs on id (its path, case-insensitively).
func (e *Env) Writes(id string) int {
	n := 0
	for _, a := range e.Emu.Audit(emulator.AuditFilter{Service: "arm", Method: http.MethodPut}) {
		if strings.EqualFold(a.Path, id) {
			n++
		}
	}
	return n
}

// Lists counts the listings of collection (a path, case-insensitively).
func (e *Env) Lists(collection string) int {
	n := 0
	for _, a := range e.Emu.Audit(emulator.AuditFilter{Service: "arm", Method: http.MethodGet}) {
		if strings.EqualFold(a.Path, collection) {
			n++
		}
	}
	return n
}

// Events drains the events recorded so far, each "<type> <reason> <message>".
func (e *Env) Events() []string {
	var out []string
	for {
		select {
		case ev := <-e.Recorder.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// Put writes a resource as someone outside aztenant would (a parent the
// kind's objects name by ARM ID), and fails t unless ARM accepts it.
func (e *Env) Put(t testing.TB, id, apiVersion, body string) {
	t.Helper()
	req, err := runtime.NewRequest(t.Context(), http.MethodPut, runtime.JoinPaths(e.arm.Endpoint(), id))
	if err != nil {
		t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	if err := req.SetBody(streaming.NopCloser(strings.NewReader(body)), "application/json"); err != nil {
		t.Fatal(err)
	}
	resp, err := e.arm.Pipeline().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("PUT %s: %s", id, resp.Status)
	}
}

// PortalEdit changes a resource in the emulator as an edit in the portal
// would: a JSON merge patch of its body, no ARM call of the operator's.
func (e *Env) PortalEdit(t testing.TB, id, mergePatch string) {
	t.Helper()
	if _, err := e.Emu.PatchResource(t.Context(), id, []byte(mergePatch)); err != nil {
		t.Fatal(err)
	}
}

// Body is the resource as the emulator holds it.
func (e *Env) Body(t testing.TB, id string) map[string]any {
	t.Helper()
	body, err := e.Emu.ResourceBody(id)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// Answers plays Azure answering writes its own way: Write changes the body of
// each PUT before the emulator takes it (so it stores and answers what Azure
// would keep), List each item of a listing (a listing thinner than a GET).
// Both nil: the emulator answers as it does.
type Answers struct {
	mu      sync.Mutex
	write   func(body map[string]any)
	list    func(item map[string]any)
	onWrite func()
}

// Write sets how Azure answers each PUT: f changes the body in place.
func (a *Answers) Write(f func(body map[string]any)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.write = f
}

// List sets how each item of a listing differs from a GET: f changes it in place.
func (a *Answers) List(f func(item map[string]any)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = f
}

// Do implements policy.Policy.
func (a *Answers) Do(req *policy.Request) (*http.Response, error) {
	a.mu.Lock()
	write, list := a.write, a.list
	a.mu.Unlock()
	raw := req.Raw()
	if raw.Method == http.MethodPut && a.onWrite != nil {
		a.onWrite()
	}
	if write != nil && raw.Method == http.MethodPut && req.Body() != nil {
		data, err := io.ReadAll(req.Body())
		if err != nil {
			return nil, err
		}
		var body map[string]any
		if err := json.Unmarshal(data, &body); err == nil {
			write(body)
			if data, err = json.Marshal(body); err != nil {
				return nil, err
			}
		}
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(data)), "application/json"); err != nil {
			return nil, err
		}
	}
	resp, err := req.Next()
	if err != nil || list == nil || raw.Method != http.MethodGet || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var page map[string]any
	if json.Unmarshal(data, &page) == nil {
		if items, ok := page["value"].([]any); ok {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					list(m)
				}
			}
			if data, err = json.Marshal(page); err != nil {
				return nil, err
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// At reads a dotted path of nested objects in a body (nil: none).
func At(body map[string]any, path string) any {
	var cur any = body
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// Set writes v at a dotted path of nested objects in a body, making the
// objects on the way.
func Set(body map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	cur := body
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[keys[len(keys)-1]] = v
}
