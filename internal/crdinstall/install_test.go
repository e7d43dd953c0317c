package crdinstall_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.WithoutCRDs(), testenv.WithoutReservation()) }

func TestPatternSelects(t *testing.T) {
	p, err := crdinstall.ParsePattern(" storage.aztenant.io/Storage* ; cache.AZTENANT.io,keyvault.aztenant.io/vaults,vaultssecrets.keyvault.aztenant.io")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group, kind, crd string
		want             bool
	}{
		{"storage.aztenant.io", "StorageAccount", "storageaccounts.storage.aztenant.io", true},
		{"storage.aztenant.io", "StorageAccountsBlobServicesContainer", "storageaccountsblobservicescontainers.storage.aztenant.io", true},
		{"cache.aztenant.io", "Redis", "redis.cache.aztenant.io", true},                      // by group, case-insensitive
		{"keyvault.aztenant.io", "Vault", "vaults.keyvault.aztenant.io", false},              // "vaults" is neither the Kind nor the name
		{"keyvault.aztenant.io", "VaultsSecret", "vaultssecrets.keyvault.aztenant.io", true}, // by CRD name
		{"network.aztenant.io", "VirtualNetwork", "virtualnetworks.network.aztenant.io", false},
		{"tenancy.aztenant.io", "Tenant", "tenants.tenancy.aztenant.io", true}, // core: always
		{"identity.aztenant.io", "Identity", "identities.identity.aztenant.io", true},
		{"plan.aztenant.io", "Plan", "plans.plan.aztenant.io", true},
	} {
		if got := p.Selects(schema.GroupKind{Group: c.group, Kind: c.kind}, c.crd); got != c.want {
			t.Errorf("%s/%s: selected %v, want %v", c.group, c.kind, got, c.want)
		}
	}
	if _, err := crdinstall.ParsePattern("a/b/c"); err == nil {
		t.Error("a/b/c accepted")
	}
	none, _ := crdinstall.ParsePattern("")
	if none.Selects(schema.GroupKind{Group: "storage.aztenant.io", Kind: "StorageAccount"}, "storageaccounts.storage.aztenant.io") {
		t.Error("the empty pattern selects a kind outside the core groups")
	}
}

// A first start creates the selected CRDs and no other; a second writes
// nothing; a changed CRD is updated; one a newer operator applied is left.
func TestInstall(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	c := env.Client
	all, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := crdinstall.ParsePattern("storage.aztenant.io/*")
	selected := p.Select(all)
	names := namesOf(selected)
	if len(selected) < 4 || len(selected) >= len(all) {
		t.Fatalf("selected %d of %d CRDs", len(selected), len(all))
	}
	in := crdinstall.Installer{Client: c, Version: "v1.2.0"}

	res, err := in.Install(ctx, selected)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Created, names) || len(res.Updated)+len(res.Unchanged)+len(res.Newer) != 0 {
		t.Fatalf("first install: %+v, want created %v", res, names)
	}
	if err := crdinstall.WaitEstablished(ctx, c, names, time.Minute); err != nil {
		t.Fatal(err)
	}
	installed := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, installed); err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, crd := range installed.Items {
		versions[crd.Name] = crd.ResourceVersion
		if !slices.Contains(names, crd.Name) {
			t.Errorf("CRD %s installed, not selected", crd.Name)
		}
		if crd.Annotations[crdinstall.VersionAnnotation] != "v1.2.0" {
			t.Errorf("CRD %s: version annotation %q", crd.Name, crd.Annotations[crdinstall.VersionAnnotation])
		}
		if !managedBy(crd, crdinstall.FieldManager) {
			t.Errorf("CRD %s: fields not owned by %s", crd.Name, crdinstall.FieldManager)
		}
	}
	if len(installed.Items) != len(names) {
		t.Errorf("%d CRDs installed, want %d", len(installed.Items), len(names))
	}

	// Started again with the same CRDs: no write.
	res, err = in.Install(ctx, selected)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Unchanged, names) || len(res.Created)+len(res.Updated) != 0 {
		t.Fatalf("second install: %+v", res)
	}
	for _, n := range names {
		crd := get(t, c, n)
		if crd.ResourceVersion != versions[n] {
			t.Errorf("CRD %s written by an install that changed nothing", n)
		}
	}

	// A new operator version whose CRD changed: updated in place.
	changed := cloneAll(selected)
	target := changed[len(changed)-1]
	target.Spec.Versions[0].AdditionalPrinterColumns = append(target.Spec.Versions[0].AdditionalPrinterColumns,
		apiextensionsv1.CustomResourceColumnDefinition{Name: "Age2", Type: "date", JSONPath: ".metadata.creationTimestamp"})
	up := crdinstall.Installer{Client: c, Version: "v1.3.0"}
	if res, err = up.Install(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Updated, []string{target.Name}) || len(res.Unchanged) != len(names)-1 {
		t.Fatalf("upgrade: %+v, want %s updated", res, target.Name)
	}
	if cols := get(t, c, target.Name).Spec.Versions[0].AdditionalPrinterColumns; !slices.ContainsFunc(cols, func(col apiextensionsv1.CustomResourceColumnDefinition) bool { return col.Name == "Age2" }) {
		t.Errorf("upgrade did not apply the new column: %v", cols)
	}

	// The older operator (a replica not rolled yet, restarting) leaves the
	// CRD as the newer one applied it.
	if res, err = in.Install(ctx, selected); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Newer, []string{target.Name}) || len(res.Updated) != 0 {
		t.Fatalf("older operator: %+v, want %s left as newer", res, target.Name)
	}
	if get(t, c, target.Name).Annotations[crdinstall.VersionAnnotation] != "v1.3.0" {
		t.Error("the older operator downgraded the CRD")
	}
}

func TestWaitEstablishedNamesTheMissing(t *testing.T) {
	env := testenv.Get(t)
	err := crdinstall.WaitEstablished(t.Context(), env.Client, []string{"nothings.example.aztenant.io"}, time.Second)
	var ne *crdinstall.ErrNotEstablished
	if !asErr(err, &ne) || !slices.Equal(ne.Names, []string{"nothings.example.aztenant.io"}) {
		t.Fatalf("WaitEstablished: %v", err)
	}
}

func namesOf(crds []*apiextensionsv1.CustomResourceDefinition) []string {
	out := make([]string, len(crds))
	for i, c := range crds {
		out[i] = c.Name
	}
	return out
}

func cloneAll(crds []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.DeepCopy()
	}
	return out
}

func get(t *testing.T, c client.Client, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func managedBy(crd apiextensionsv1.CustomResourceDefinition, manager string) bool {
	for _, m := range crd.ManagedFields {
		if m.Manager == manager {
			return true
		}
	}
	return false
}

func asErr(err error, target **crdinstall.ErrNotEstablished) bool { return errors.As(err, target) }
