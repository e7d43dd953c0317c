package kinds_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	networkv1alpha1 "github.com/aztenant/aztenant/api/network/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
)

// A virtual network's spec leaves its subnets to the VirtualNetworksSubnet kind, but
// Azure deletes the subnets a PUT of the network leaves out. The adapter declares
// properties.subnets carried (reconcilers.Facts.CarriedOnPut): a PUT of the network, for
// a spec change or to revert a portal change, keeps both subnets, which stay Ready and are
// never written again.
func TestVirtualNetworkPutKeepsSubnets(t *testing.T) {
	t.Parallel()
	const ns, rg = "vnetkeep", "vnetkeep-rg"
	cfg := stacktest.DefaultConfig()
	cfg.SyncPeriod = 2 * time.Second
	cfg.Kinds = stacktest.TestKindsAnd("network.aztenant.io")
	s := newStackWith(t, cfg, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	vnet := &networkv1alpha1.VirtualNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "net"},
		Spec: networkv1alpha1.VirtualNetworkSpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: stacktest.Location,
			Tags:         map[string]string{"env": "a"},
			AddressSpace: &networkv1alpha1.VirtualNetworkAddressSpace{AddressPrefixes: []string{"10.0.0.0/16"}}}}
	s.Create(t, vnet)
	var subnets []*networkv1alpha1.VirtualNetworksSubnet
	for i, name := range []string{"web", "db"} {
		sn := &networkv1alpha1.VirtualNetworksSubnet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: networkv1alpha1.VirtualNetworksSubnetSpec{Owner: &azurev1alpha1.OwnerReference{Name: "net"},
				AddressPrefix: "10.0." + string(rune('1'+i)) + ".0/24"}}
		s.Create(t, sn)
		subnets = append(subnets, sn)
	}
	ready := func(obj azurev1alpha1.Resource) {
		t.Helper()
		poll(t, obj.GetName()+" Ready", func(ctx context.Context) (bool, error) {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return false, err
			}
			return readyTrue(obj), nil
		})
	}
	ready(vnet)
	for _, sn := range subnets {
		ready(sn)
	}
	vnetPath := strings.ToLower(vnet.Status.ID[strings.Index(vnet.Status.ID, "/providers/"):])
	putsOf := func(path string) int {
		n := 0
		for _, c := range s.ARMCalls(path) {
			if c.Method == "PUT" {
				n++
			}
		}
		return n
	}
	subnetPuts := map[string]int{}
	for _, sn := range subnets {
		subnetPuts[sn.Status.ID] = putsOf(strings.ToLower(sn.Status.ID[strings.Index(sn.Status.ID, "/providers/"):]))
	}
	// Both subnets exist in Azure, each written once, and the network lists them.
	check := func(when string) {
		t.Helper()
		listed, _ := lookup(s.AzureBody(t, vnet.Status.ID), []string{"properties", "subnets"}).([]any)
		if len(listed) != 2 {
			t.Errorf("%s: the network lists %d subnets in Azure, want 2", when, len(listed))
		}
		for _, sn := range subnets {
			if _, err := s.Emu.Resource(sn.Status.ID); err != nil {
				t.Errorf("%s: subnet %s is gone from Azure: %v", when, sn.Name, err)
			}
			path := strings.ToLower(sn.Status.ID[strings.Index(sn.Status.ID, "/providers/"):])
			if n := putsOf(path); n != subnetPuts[sn.Status.ID] {
				t.Errorf("%s: subnet %s was written again (%d PUTs, was %d): it had been deleted", when, sn.Name, n, subnetPuts[sn.Status.ID])
			}
			// While the network is being written it is not Ready, and its
			// subnets wait for it a moment (WaitingForOwner): they are Ready
			// again once it is.
			poll(t, when+": subnet "+sn.Name+" Ready", func(ctx context.Context) (bool, error) {
				return s.Client.Get(ctx, client.ObjectKeyFromObject(sn), sn) == nil && readyTrue(sn), nil
			})
		}
	}
	check("before")

	// A spec change: the network is PUT again.
	before := putsOf(vnetPath)
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(vnet), vnet))
	base := vnet.DeepCopy() // a patch: the operator may be writing the object's status
	vnet.Spec.Tags["env"] = "b"
	vnet.Spec.AddressSpace.AddressPrefixes = []string{"10.0.0.0/16", "10.1.0.0/16"}
	must(t, s.Client.Patch(ctx, vnet, client.MergeFrom(base)))
	poll(t, "the network's spec change in Azure", func(context.Context) (bool, error) {
		body := s.AzureBody(t, vnet.Status.ID)
		prefixes, _ := lookup(body, []string{"properties", "addressSpace", "addressPrefixes"}).([]any)
		return lookup(body, []string{"tags", "env"}) == "b" && len(prefixes) == 2 && putsOf(vnetPath) > before, nil
	})
	ready(vnet)
	check("after the spec change")

	// A portal change, reverted by the next sync's PUT.
	before = putsOf(vnetPath)
	patch, _ := json.Marshal(map[string]any{"tags": map[string]any{"env": "portal"}})
	if _, err := s.Emu.PatchResource(ctx, vnet.Status.ID, patch); err != nil {
		t.Fatal(err)
	}
	poll(t, "the portal change reverted", func(context.Context) (bool, error) {
		return lookup(s.AzureBody(t, vnet.Status.ID), []string{"tags", "env"}) == "b" && putsOf(vnetPath) > before, nil
	})
	check("after the portal change was reverted")
}
