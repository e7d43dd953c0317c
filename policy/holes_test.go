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
	for i, tc := range cases {
		t.Run(strings.Join(tc.sources, "+"), func(t *testing.T) {
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
			got := map[Engine][]string{}
			for _, e := range singleEngines {
				vs, err := Evaluate(ctx, []*unstructured.Unstructured{constraint, rule}, nil, WithEngine(e))
				if err != nil {
					t.Fatal(err)
				}
				got[e] = messages(vs)
			}
			if !reflect.DeepEqual(got[EngineCEL], got[EngineRego]) {
				t.Errorf("engines disagree:\n CEL:  %q\n Rego: %q", got[EngineCEL], got[EngineRego])
			}
			msgs := got[EngineCEL]
			switch {
			case tc.want == allowed && len(msgs) > 0:
				t.Errorf("denied: %q", msgs)
			case tc.want != allowed && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.want)):
				t.Errorf("want one violation saying %q, got %q", tc.want, msgs)
			}
		})
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
	for _, key := range []string{reconcilers.AnnotationAdopt, reconcilers.AnnotationReconcilePolicy, reconcilers.AnnotationASOReconcilePolicy} {
		for _, e := range singleEngines {
			for _, ns := range []string{"closed", "migration"} {
				obj := object(t, `
apiVersion: network.aztenant.io/v1alpha1
kind: VirtualNetwork
metadata:
  name: legacy
  namespace: `+ns+`
spec:
  owner:
    name: rg
  location: westeurope
`)
				obj.SetAnnotations(map[string]string{key: "skip"})
				vs, err := Evaluate(ctx, []*unstructured.Unstructured{constraint, obj}, namespaces, WithEngine(e))
				if err != nil {
					t.Fatal(err)
				}
				got := messages(vs)
				var want []string
				if ns == "closed" {
					want = []string{"VirtualNetwork legacy sets " + key + ", which namespace closed may not use; list it in allowedNamespaces or label it aztenant.io/allow-reconcile-annotations=true"}
				}
				if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s in namespace %s: got %q, want %q", e, key, ns, got, want)
				}
			}
		}
	}
}
