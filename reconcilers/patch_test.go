package reconcilers

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// patchRecorder is an API server (the fake client) that records the body of
// every patch, of the object and of its status.
type patchRecorder struct {
	client.Client
	metadata, status []map[string]any
}

func newPatchRecorder(t *testing.T, objs ...client.Object) *patchRecorder {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := resourcesv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	rec := &patchRecorder{}
	body := func(obj client.Object, patch client.Patch) map[string]any {
		t.Helper()
		if patch.Type() != "application/merge-patch+json" {
			t.Errorf("patch type %s, want a merge patch", patch.Type())
		}
		data, err := patch.Data(obj)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	rec.Client = fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&resourcesv1alpha1.ResourceGroup{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				rec.metadata = append(rec.metadata, body(obj, patch))
				return c.Patch(ctx, obj, patch, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if sub != "status" {
					t.Errorf("patch of subresource %s", sub)
				}
				rec.status = append(rec.status, body(obj, patch))
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	return rec
}

func storedGroup(t *testing.T, c client.Client) *resourcesv1alpha1.ResourceGroup {
	t.Helper()
	var rg resourcesv1alpha1.ResourceGroup
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "rg"}, &rg); err != nil {
		t.Fatal(err)
	}
	return &rg
}

func readGroup(t *testing.T) (*patchRecorder, *Reconciler, *resourcesv1alpha1.ResourceGroup) {
	t.Helper()
	rec := newPatchRecorder(t, &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rg"}})
	return rec, &Reconciler{Client: rec}, storedGroup(t, rec)
}

// A reconcile that changes nothing of its object sends no request.
func TestPatcherSendsNothingWhenNothingChanged(t *testing.T) {
	rec, r, rg := readGroup(t)
	p := r.newPatcher(rg)
	newOutcome(ReasonSucceeded, "m").apply(rg)
	p.before = rg.DeepCopy() // as if read with that status
	for _, err := range []error{p.patch(context.Background(), rg), p.patchStatus(context.Background(), rg), p.patchMetadata(context.Background(), rg)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.metadata)+len(rec.status) != 0 {
		t.Errorf("patches sent for no change: metadata %v, status %v", rec.metadata, rec.status)
	}
}

// Metadata and status go in separate merge patches, each with only what
// changed; once written, nothing is sent again.
func TestPatcherSendsMetadataAndStatusSeparately(t *testing.T) {
	ctx := context.Background()
	rec, r, rg := readGroup(t)
	p := r.newPatcher(rg)
	rg.Finalizers = []string{Finalizer}
	rg.Status.ID = "/subscriptions/s/resourceGroups/rg"
	newOutcome(ReasonSucceeded, "m").apply(rg)
	if err := p.patch(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if len(rec.metadata) != 1 || len(rec.status) != 1 {
		t.Fatalf("patches: metadata %v, status %v; want one of each", rec.metadata, rec.status)
	}
	if _, has := rec.metadata[0]["status"]; has || len(rec.metadata[0]) != 1 {
		t.Errorf("metadata patch %v: want only metadata", rec.metadata[0])
	}
	if md := rec.metadata[0]["metadata"].(map[string]any); len(md) != 1 || md["finalizers"] == nil {
		t.Errorf("metadata patch %v: want only the finalizers", rec.metadata[0])
	}
	if _, has := rec.status[0]["metadata"]; has || len(rec.status[0]) != 1 {
		t.Errorf("status patch %v: want only status", rec.status[0])
	}
	got := storedGroup(t, rec)
	if len(got.Finalizers) != 1 || got.Status.ID != rg.Status.ID || len(got.Status.Conditions) != 1 {
		t.Errorf("stored %+v %+v", got.ObjectMeta, got.Status)
	}
	if rg.ResourceVersion != got.ResourceVersion || r.writes.differs(got) {
		t.Errorf("resourceVersion %s, stored %s: the write's is not the one recorded", rg.ResourceVersion, got.ResourceVersion)
	}
	if err := p.patch(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if len(rec.metadata) != 1 || len(rec.status) != 1 {
		t.Errorf("written again: metadata %v, status %v", rec.metadata, rec.status)
	}

	// A removed finalizer is a null in the patch; only the changed
	// condition's array is in the status patch.
	rg.Finalizers = nil
	newOutcome(ReasonAzureUnavailable, "503").apply(rg)
	if err := p.patch(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if md := rec.metadata[1]["metadata"].(map[string]any); len(md) != 1 || md["finalizers"] != nil {
		t.Errorf("metadata patch %v: want finalizers null", rec.metadata[1])
	}
	if st := rec.status[1]["status"].(map[string]any); st["id"] != nil || st["conditions"] == nil {
		t.Errorf("status patch %v: want the conditions only", rec.status[1])
	}
}

// A write made at once (patchStatus before the PUT) leaves what else changed
// pending for the patch that ends the reconcile, and the other way round.
func TestPatcherKeepsWhatIsNotWrittenYet(t *testing.T) {
	ctx := context.Background()
	rec, r, rg := readGroup(t)
	p := r.newPatcher(rg)
	rg.Finalizers = []string{Finalizer}
	rg.Status.ID = "/subscriptions/s/resourceGroups/rg"
	if err := p.patchStatus(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if len(rec.metadata) != 0 || len(rec.status) != 1 {
		t.Fatalf("patches: metadata %v, status %v; want the status only", rec.metadata, rec.status)
	}
	rg.Status.ProvisioningState = "Succeeded"
	if err := p.patchMetadata(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if err := p.patch(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if len(rec.metadata) != 1 || len(rec.status) != 2 {
		t.Fatalf("patches: metadata %v, status %v", rec.metadata, rec.status)
	}
	if st := rec.status[1]["status"].(map[string]any); len(st) != 1 || st["provisioningState"] != "Succeeded" {
		t.Errorf("second status patch %v: want provisioningState only", rec.status[1])
	}
	if got := storedGroup(t, rec); len(got.Finalizers) != 1 || got.Status.ProvisioningState != "Succeeded" || got.Status.ID == "" {
		t.Errorf("stored %+v %+v", got.ObjectMeta, got.Status)
	}
}

// The finalizer helpers write at once, and only when the finalizer changes.
func TestPatcherFinalizer(t *testing.T) {
	ctx := context.Background()
	rec, r, rg := readGroup(t)
	p := r.newPatcher(rg)
	for range 2 {
		if err := p.addFinalizer(ctx, rg); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := p.removeFinalizer(ctx, rg); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.metadata) != 2 || len(rec.status) != 0 {
		t.Errorf("patches: metadata %v, status %v; want two of metadata", rec.metadata, rec.status)
	}
	if got := storedGroup(t, rec); len(got.Finalizers) != 0 {
		t.Errorf("finalizers %v", got.Finalizers)
	}
}

func TestMergePatch(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after map[string]any
		want          string
	}{
		{"same", map[string]any{"a": 1.0, "m": map[string]any{"b": "x"}}, map[string]any{"a": 1.0, "m": map[string]any{"b": "x"}}, `{}`},
		{"changed, added, removed", map[string]any{"a": 1.0, "gone": "x"}, map[string]any{"a": 2.0, "new": "y"}, `{"a":2,"gone":null,"new":"y"}`},
		{"nested", map[string]any{"m": map[string]any{"b": "x", "c": "y"}}, map[string]any{"m": map[string]any{"b": "x", "c": "z"}}, `{"m":{"c":"z"}}`},
		{"arrays whole", map[string]any{"l": []any{"a", "b"}}, map[string]any{"l": []any{"a"}}, `{"l":["a"]}`},
		{"object replaced by a value", map[string]any{"m": map[string]any{"b": "x"}}, map[string]any{"m": "v"}, `{"m":"v"}`},
	} {
		got, err := mergePatchOf(tc.before, tc.after)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
