package tenancy

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// bigCluster is 200 Tenants and 2,000 namespaces: half the Tenants select 10
// namespaces by name, half by a label.
func bigCluster() []client.Object {
	var objs []client.Object
	for i := range 200 {
		name := fmt.Sprintf("tenant-%03d", i)
		objs = append(objs, tenant(name, func(s *tenancyv1alpha1.TenantSpec) {
			if i%2 == 0 {
				for j := range 10 {
					s.Namespaces = append(s.Namespaces, fmt.Sprintf("ns-%03d-%d", i, j))
				}
			} else {
				s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"aztenant.io/tenant": name}}
			}
			s.Locations = []azurev1alpha1.Location{"westeurope"}
		}))
		for j := range 10 {
			objs = append(objs, namespace(fmt.Sprintf("ns-%03d-%d", i, j), map[string]string{
				"aztenant.io/tenant": name, "kubernetes.io/metadata.name": fmt.Sprintf("ns-%03d-%d", i, j)}))
		}
	}
	return objs
}

// BenchmarkTenantFor: 200 Tenants, 2,000 namespaces, in-memory client.
// "listing" is the path before the index syncs; "index" the steady state.
func BenchmarkTenantFor(b *testing.B) {
	objs := bigCluster()
	reader := fakeReader(b, objs...)
	for _, path := range []string{"index", "listing"} {
		d := NewDirectory(reader, ServeTenants())
		if path == "index" {
			d = indexed(reader, ServeTenants(), objs...)
		}
		b.Run(path, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ns := fmt.Sprintf("ns-%03d-%d", i%200, i%10)
				if _, err := d.TenantFor(ctx, ns); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkServes(b *testing.B) {
	objs := bigCluster()
	d := indexed(fakeReader(b, objs...), ServeTenants(), objs...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := d.Serves(ctx, "ns-123-4"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkAdmit(b *testing.B) {
	objs := bigCluster()
	d := indexed(fakeReader(b, objs...), ServeTenants(), objs...)
	g := NewGuard(d)
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-123-4", Name: "x"}}
	target := Target{
		ARMID:     "/subscriptions/" + subA + "/resourceGroups/tenant-123-db/providers/Microsoft.Storage/storageAccounts/sa1",
		Location:  "West Europe",
		GroupKind: schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccount"},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Admit(ctx, obj, target); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexNamespaceEvent is the write cost of a namespace label change.
func BenchmarkIndexNamespaceEvent(b *testing.B) {
	objs := bigCluster()
	d := indexed(fakeReader(b, objs...), ServeTenants(), objs...)
	i := 0
	for b.Loop() {
		d.index.SetNamespace("ns-123-4", map[string]string{"aztenant.io/tenant": fmt.Sprintf("tenant-%03d", i%200)})
		i++
	}
}

// BenchmarkIndexTenantChangeAnnounced is the write cost of a Tenant spec
// change (10 namespaces re-matched) announced to 14 subscribers, one per
// kind's controller, that read the announcements as they come.
func BenchmarkIndexTenantChangeAnnounced(b *testing.B) {
	objs := bigCluster()
	d := indexed(fakeReader(b, objs...), ServeTenants(), objs...)
	for range 14 {
		changes := d.index.Subscribe(b.Context())
		go func() {
			for range changes {
			}
		}()
	}
	t := tenant("tenant-002", nil)
	for j := range 10 {
		t.Spec.Namespaces = append(t.Spec.Namespaces, fmt.Sprintf("ns-002-%d", j))
	}
	i := int64(0)
	for b.Loop() {
		i++
		c := t.DeepCopy()
		c.Generation = i
		d.index.SetTenant(c)
	}
}
