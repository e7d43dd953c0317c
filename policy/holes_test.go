package policy

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/aztenant/aztenant/reconcilers"
)

// The management-port rule sums what a rule's sources admit, as a tenant
// could split the internet: each case is a rule to port 22 from sources,
// and whether it is the internet (or cannot be checked). Both engines must
// say exactly the same.
func TestNetworkSecurityRuleAddressArithmetic(t *testing.T) {
	ctx := context.Background()
	constraint := readLibraryObject(t, "networksecurityrule/samples/default-ports/constraint.yaml") // maxAddresses 256
	const (
		allowed   = ""
		internet  = "from the internet"
		unchecked = "cannot be checked"
	)
	cases := []struct {
		sources []string
		want    string
	}{
		{[]string{"0.0.0.0/1", "128.0.0.0/1"}, internet},
		{[]string{"0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"}, internet},
		{[]string{"0.0.0.0/5"}, internet},
		{[]string{"0.0.0.0/0"}, internet},
		{[]string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16"}, allowed},
		// 8.0.0.0/6 holds 10.0.0.0/8: 2^26 - 2^24 public addresses are left.
		{[]string{"8.0.0.0/6"}, internet},
		{[]string{"10.0.0.0/7"}, internet},
		{[]string{"203.0.113.0/24"}, allowed},
		{[]string{"203.0.113.0/24", "203.0.113.1/24", "203.0.113.128/25", "203.0.113.9"}, allowed},
		{[]string{"203.0.113.0/24", "198.51.100.1"}, internet},
		{[]string{"203.0.113.0/25", "203.0.113.128/25"}, allowed},
		{[]string{"203.0.113.0/25", "203.0.113.128/25", "198.51.100.1"}, internet},
		{[]string{"::/1", "8000::/1"}, internet},
		{[]string{"2001:db8::/120"}, allowed},
		{[]string{"2001:DB8::/119"}, internet},
		{[]string{"2001:db8::/120", "198.51.100.1"}, internet},
		{[]string{"FD00:DB8::/48", "fe80::/10", "fc00::/7"}, allowed},
		{[]string{"fc00::/6"}, internet},
		{[]string{"::ffff:0:0/96"}, internet},
		{[]string{"::ffff:0.0.0.0/96"}, unchecked},
		{[]string{"203.0.113.0/33"}, unchecked},
		{[]string{"256.0.0.0/8"}, unchecked},
		{[]string{"203.0.113.1-203.0.113.9"}, unchecked},
		{[]string{"AzureCloud"}, internet},
		{[]string{"azurecloud.westeurope"}, internet},
		{[]string{"VirtualNetwork", "AzureLoadBalancer", "Storage.WestEurope", "Sql.EastUS2"}, allowed},
	}
	// One evaluation per engine for every case: each compiles the template.
	objs := []*unstructured.Unstructured{constraint}
	for i, tc := range cases {
		rule := object(t, fmt.Sprintf(`
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkSecurityGroupsSecurityRule
metadata:
  name: rule-%d
  namespace: team-a
spec:
  owner:
    name: nsg
  priority: 100
  access: Allow
  direction: Inbound
  protocol: Tcp
  destinationPortRange: "22"
`, i))
		if err := unstructured.SetNestedStringSlice(rule.Object, tc.sources, "spec", "sourceAddressPrefixes"); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, rule)
	}
	got := map[Engine]map[string][]string{}
	for _, e := range singleEngines {
		vs, err := Evaluate(ctx, objs, nil, WithEngine(e))
		if err != nil {
			t.Fatal(err)
		}
		got[e] = map[string][]string{}
		for _, v := range vs {
			got[e][v.Object] = append(got[e][v.Object], v.Message)
		}
	}
	for i, tc := range cases {
		name := fmt.Sprintf("NetworkSecurityGroupsSecurityRule team-a/rule-%d", i)
		cel, rego := got[EngineCEL][name], got[EngineRego][name]
		if !reflect.DeepEqual(cel, rego) {
			t.Errorf("%v: engines disagree:\n CEL:  %q\n Rego: %q", tc.sources, cel, rego)
		}
		switch {
		case tc.want == allowed && len(cel) > 0:
			t.Errorf("%v: denied: %q", tc.sources, cel)
		case tc.want != allowed && (len(cel) != 1 || !strings.Contains(cel[0], tc.want)):
			t.Errorf("%v: want one violation saying %q, got %q", tc.sources, tc.want, cel)
		}
	}
}

// Every annotation the operator honours that adopts or changes what it may
// do in Azure is one the reconcile-annotations template restricts: ASO's
// reconcile-policy too (reconcilers/aso.go), which once let a namespace not
// allowed to adopt take over an unmanaged network.
func TestReconcileAnnotationsCoverWhatTheOperatorHonours(t *testing.T) {
	ctx := context.Background()
	constraint := readLibraryObject(t, "reconcileannotations/samples/restrict-reconcile-annotations/constraint.yaml")
	namespaces := []*corev1.Namespace{
		namespace("closed", nil, nil),
		namespace("migration", map[string]string{"aztenant.io/allow-reconcile-annotations": "true"}, nil),
	}
	keys := []string{reconcilers.AnnotationAdopt, reconcilers.AnnotationReconcilePolicy, reconcilers.AnnotationASOReconcilePolicy}
	objs := []*unstructured.Unstructured{constraint}
	for i, key := range keys {
		for _, ns := range []string{"closed", "migration"} {
			obj := object(t, fmt.Sprintf(`
apiVersion: network.aztenant.io/v1alpha1
kind: VirtualNetwork
metadata:
  name: legacy-%d
  namespace: %s
spec:
  owner:
    name: rg
  location: westeurope
`, i, ns))
			obj.SetAnnotations(map[string]string{key: "skip"})
			objs = append(objs, obj)
		}
	}
	for _, e := range singleEngines {
		vs, err := Evaluate(ctx, objs, namespaces, WithEngine(e))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, key := range keys {
			want = append(want, fmt.Sprintf("VirtualNetwork closed/legacy-%d: VirtualNetwork legacy-%d sets %s, which namespace closed may not use; list it in allowedNamespaces or label it aztenant.io/allow-reconcile-annotations=true", i, i, key))
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.Object+": "+v.Message)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", e, got, want)
		}
	}
}
