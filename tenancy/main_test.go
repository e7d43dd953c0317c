package tenancy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/aztenant/aztenant/api"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	subA = "11111111-1111-1111-1111-111111111111"
	subB = "22222222-2222-2222-2222-222222222222"
)

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := api.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// tenant builds a Tenant; mutate tweaks the spec.
func tenant(name string, mutate func(*tenancyv1alpha1.TenantSpec)) *tenancyv1alpha1.Tenant {
	t := &tenancyv1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: tenancyv1alpha1.TenantSpec{
			Subscriptions:  []string{subA},
			ResourceGroups: []string{name + "-*"},
			Weight:         1,
		},
	}
	if mutate != nil {
		mutate(&t.Spec)
	}
	return t
}

func fakeReader(t testing.TB, objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objs...).Build()
}

// indexed returns a Directory whose index was fed the objects as informer
// events would, and is marked synced.
func indexed(reader client.Reader, mode ServeMode, objs ...client.Object) *Directory {
	d := NewDirectory(reader, mode)
	for _, o := range objs {
		switch o := o.(type) {
		case *tenancyv1alpha1.Tenant:
			d.index.SetTenant(o)
		case *corev1.Namespace:
			d.index.SetNamespace(o.Name, o.Labels)
		}
	}
	d.index.synced = []func() bool{func() bool { return true }}
	return d
}
