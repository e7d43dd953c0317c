package reconcilers

import (
	"context"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/tenancy"
)

type recordingNameGuard struct{ got []tenancy.Name }

func (g *recordingNameGuard) AdmitNames(_ context.Context, _ client.Object, names []tenancy.Name) error {
	g.got = append(g.got, names...)
	return nil
}

// Each value at a kind's name paths reaches the guard with the subscription
// Azure would use: the one given beside it (in the same list element), the
// subscription of an ARM ID given beside it, else the resource's own for a
// resource group.
func TestAdmitNamesFindsEveryValue(t *testing.T) {
	const own, other = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	id := "/subscriptions/" + own + "/resourceGroups/team-a-rg/providers/Microsoft.Example/things/x"
	body := map[string]any{
		"properties": map[string]any{
			"nodeResourceGroup":           "team-a-nodes",
			"vnetConfiguration":           map[string]any{"infrastructureSubnetId": "/subscriptions/" + other + "/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/s"},
			"infrastructureResourceGroup": "team-a-infra",
			"receivers": []any{
				map[string]any{"namespace": "ns1", "subscriptionId": own},
				map[string]any{"namespace": "ns2", "subscriptionId": other},
			},
			"scopes":   map[string]any{"subscriptions": []any{"/subscriptions/" + own, ""}},
			"accounts": map[string]any{"b": map[string]any{"accountName": "bfiles"}, "a": map[string]any{"accountName": "afiles"}},
		},
	}
	r := &Reconciler{Kind: fakeKind{facts: Facts{Names: []NameRef{
		{Path: "properties.nodeResourceGroup", Means: NameResourceGroup},
		{Path: "properties.infrastructureResourceGroup", Means: NameResourceGroup, SubscriptionPath: "properties.vnetConfiguration.infrastructureSubnetId"},
		{Path: "properties.receivers.namespace", Means: "Microsoft.EventHub/namespaces", SubscriptionPath: "properties.receivers.subscriptionId"},
		{Path: "properties.receivers.subscriptionId", Means: NameSubscription},
		{Path: "properties.scopes.subscriptions", Means: NameSubscription},
		{Path: "properties.accounts.*.accountName", Means: "Microsoft.Storage/storageAccounts"},
		{Path: "properties.absent", Means: NameResourceGroup},
	}}}}
	g := &recordingNameGuard{}
	r.NameGuard = g
	obj := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "x"}}
	if o := r.admitNames(context.Background(), obj, id, body); o != nil {
		t.Fatalf("admitNames = %v", o)
	}
	want := []tenancy.Name{
		{Path: "properties.nodeResourceGroup", Value: "team-a-nodes", Means: NameResourceGroup, SubscriptionID: own},
		{Path: "properties.infrastructureResourceGroup", Value: "team-a-infra", Means: NameResourceGroup, SubscriptionID: other},
		{Path: "properties.receivers[0].namespace", Value: "ns1", Means: "Microsoft.EventHub/namespaces", SubscriptionID: own},
		{Path: "properties.receivers[1].namespace", Value: "ns2", Means: "Microsoft.EventHub/namespaces", SubscriptionID: other},
		{Path: "properties.receivers[0].subscriptionId", Value: own, Means: NameSubscription},
		{Path: "properties.receivers[1].subscriptionId", Value: other, Means: NameSubscription},
		{Path: "properties.scopes.subscriptions[0]", Value: "/subscriptions/" + own, Means: NameSubscription},
		{Path: "properties.accounts[a].accountName", Value: "afiles", Means: "Microsoft.Storage/storageAccounts"},
		{Path: "properties.accounts[b].accountName", Value: "bfiles", Means: "Microsoft.Storage/storageAccounts"},
	}
	if !reflect.DeepEqual(g.got, want) {
		t.Errorf("names:\n got %+v\nwant %+v", g.got, want)
	}

	// A subscription given beside it that is not a well-formed ARM ID is
	// refused here: Azure would read a subscription from it the guard never saw.
	body["properties"].(map[string]any)["vnetConfiguration"] = map[string]any{"infrastructureSubnetId": "/subscriptions/" + other + "/resourceGroups/net/../victim/providers/Microsoft.Network/virtualNetworks/v/subnets/s"}
	o := r.admitNames(context.Background(), obj, id, body)
	if o == nil || o.Reason != tenancy.ReasonPolicyDenied || !strings.Contains(o.Message, "properties.infrastructureResourceGroup") {
		t.Errorf("admitNames with a malformed subnet ID = %+v, want a denial naming the field", o)
	}
}
