package azimport_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/azimport"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.WithKinds(importKinds)) }

// importKinds are the kinds of the imported resource group: the control plane's and
// the operator's.
var importKinds = testenv.KindsAnd("network.aztenant.io/NetworkSecurityGroup*", "network.aztenant.io/VirtualNetwork*")

const sub = stacktest.SubscriptionID

// withoutMarkers is a resource's Azure body without aztenant's tags and the
// fields Azure changes by itself.
func withoutMarkers(t *testing.T, s *stacktest.Stack, id string) string {
	t.Helper()
	body := s.AzureBody(t, id)
	if tags, ok := body["tags"].(map[string]any); ok {
		for k := range tags {
			if strings.HasPrefix(k, "aztenant.io") {
				delete(tags, k)
			}
		}
		if len(tags) == 0 {
			delete(body, "tags")
		}
	}
	delete(body, "etag")
	delete(body, "systemData")
	raw, _ := jsonMarshal(withoutStates(body))
	return raw
}

// A resource group made outside aztenant, with a storage account and a blob
// container, an identity with a federated credential, a network with a subnet, a
// security group with a rule and a role assignment: imported, every resource
// becomes a manifest linked to its owner by name; applied, each is adopted and
// Ready without a change in Azure (aztenant's owner marker tag aside); observed
// afterwards, Azure matches every spec.
func TestImportRoundTrip(t *testing.T) {
	const ns = "imp"
	cfg := stacktest.DefaultConfig()
	cfg.Kinds = importKinds
	s := stacktest.NewWith(t, cfg, ns)
	ctx := t.Context()
	reg, err := reconcilers.NewRegistry(s.Env.Scheme, kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	version := map[string]string{}
	for _, k := range reg.Kinds() {
		version[k.Facts().ResourceType] = k.Facts().APIVersion
	}
	cl, err := arm.NewClient("azimport.test", "v0.1.0", s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	rg := stacktest.RGID("imp-legacy")
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/implegacy01"
	uai := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/imp-app"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/imp-vnet"
	nsg := rg + "/providers/Microsoft.Network/networkSecurityGroups/imp-nsg"
	ra := rg + "/providers/Microsoft.Authorization/roleAssignments/0b6a1f0e-8d54-4c7c-9f2a-3e6d1c2b4a59"
	made := []string{rg, sa, sa + "/blobServices/default/containers/data", uai, uai + "/federatedIdentityCredentials/ci-main", vnet, vnet + "/subnets/default", nsg, nsg + "/securityRules/allow-https", ra}
	s.PlatformPut(t, rg, version["Microsoft.Resources/resourceGroups"], `{"location":"westeurope","tags":{"team":"a"}}`)
	s.PlatformPut(t, sa, version["Microsoft.Storage/storageAccounts"], `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"tags":{"team":"a"},"properties":{"minimumTlsVersion":"TLS1_2","allowBlobPublicAccess":false}}`)
	s.PlatformPut(t, made[2], version["Microsoft.Storage/storageAccounts/blobServices/containers"], `{"properties":{"publicAccess":"None"}}`)
	s.PlatformPut(t, uai, version["Microsoft.ManagedIdentity/userAssignedIdentities"], `{"location":"westeurope"}`)
	s.PlatformPut(t, made[4], version["Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"], `{"properties":{"issuer":"`+s.Env.IssuerURL+`","subject":"system:serviceaccount:`+ns+`:app","audiences":["api://AzureADTokenExchange"]}}`)
	s.PlatformPut(t, vnet, version["Microsoft.Network/virtualNetworks"], `{"location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.1.0.0/16"]}}}`)
	s.PlatformPut(t, made[6], version["Microsoft.Network/virtualNetworks/subnets"], `{"properties":{"addressPrefix":"10.1.0.0/24"}}`)
	s.PlatformPut(t, nsg, version["Microsoft.Network/networkSecurityGroups"], `{"location":"westeurope"}`)
	s.PlatformPut(t, made[8], version["Microsoft.Network/networkSecurityGroups/securityRules"], `{"properties":{"protocol":"Tcp","sourcePortRange":"*","destinationPortRange":"443","sourceAddressPrefix":"10.0.0.0/8","destinationAddressPrefix":"*","access":"Allow","priority":200,"direction":"Inbound"}}`)
	s.PlatformPut(t, ra, version["Microsoft.Authorization/roleAssignments"], `{"properties":{"roleDefinitionId":"/subscriptions/`+sub+`/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","principalId":"`+s.Principal[ns]+`"}}`)
	// What Azure made settles (long-running creates) before it is read.
	for _, id := range made {
		stacktest.Until(t, id+" provisioned", func() bool {
			p, _ := s.AzureBody(t, id)["properties"].(map[string]any)
			st, _ := p["provisioningState"].(string)
			return st == "" || st == "Succeeded"
		})
	}

	im := &azimport.Importer{Client: cl, Registry: reg, Scheme: s.Env.Scheme, Namespace: ns}
	res, err := im.ResourceGroup(ctx, sub, "imp-legacy")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Log(f)
	}
	byKind := map[string][]*unstructured.Unstructured{}
	for _, o := range res.Objects {
		byKind[o.GetKind()] = append(byKind[o.GetKind()], o)
	}
	for _, k := range []string{"ResourceGroup", "StorageAccount", "StorageAccountsBlobServicesContainer", "UserAssignedIdentity", "FederatedIdentityCredential",
		"VirtualNetwork", "VirtualNetworksSubnet", "NetworkSecurityGroup", "NetworkSecurityGroupsSecurityRule", "RoleAssignment"} {
		if len(byKind[k]) != 1 {
			t.Errorf("%d %s imported, want 1", len(byKind[k]), k)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	owner := func(o *unstructured.Unstructured) string {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "owner", "name")
		return v
	}
	if c := byKind["StorageAccountsBlobServicesContainer"][0]; owner(c) != "implegacy01" {
		t.Errorf("container owner %q, want the storage account's object", owner(c))
	}
	if r := byKind["RoleAssignment"][0]; owner(r) != "imp-legacy" || r.GetAnnotations()[reconcilers.AnnotationAdopt] != "true" {
		t.Errorf("role assignment owner %q annotations %v", owner(r), r.GetAnnotations())
	}
	if ref, _, _ := unstructured.NestedString(byKind["RoleAssignment"][0].Object, "spec", "roleDefinitionReference", "armId"); !strings.HasSuffix(ref, "acdd72a7-3385-48ef-bd42-f606fba81ae7") {
		t.Errorf("role definition reference %q", ref)
	}

	before := map[string]string{}
	for _, id := range made {
		before[id] = withoutMarkers(t, s, id)
	}
	var since uint64
	if last := s.Emu.Audit(emulator.AuditFilter{Limit: 1}); len(last) > 0 {
		since = last[0].Seq
	}
	for _, o := range res.Objects {
		if err := s.Client.Create(ctx, o.DeepCopy()); err != nil {
			t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	ready := func(o *unstructured.Unstructured, cond, reason string) bool {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m := c.(map[string]any)
			if m["type"] == cond {
				return m["status"] == "True" && m["reason"] == reason
			}
		}
		return false
	}
	for _, o := range res.Objects {
		testenv.Eventually(t, time.Minute, o.GetKind()+" "+o.GetName()+" adopted and Ready", func() (bool, string) { return ready(o, "Ready", reconcilers.ReasonSucceeded), conditions(t, s, o) })
	}
	puts := map[string]int{}
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"}) {
		if e.Method != "GET" {
			puts[strings.ToLower(e.Path)]++
		}
	}
	var written []string
	for p, n := range puts {
		if n > 1 {
			t.Errorf("%d writes to %s, want at most one (the owner marker)", n, p)
		}
		written = append(written, p)
	}
	sort.Strings(written)
	t.Logf("writes on adoption (owner marker tags): %v", written)
	for _, id := range made {
		if after := withoutMarkers(t, s, id); after != before[id] {
			t.Errorf("adopting %s changed it in Azure beyond the owner marker:\nbefore %s\nafter  %s", id, before[id], after)
		}
	}

	// Observed, every object matches Azure.
	for _, o := range res.Objects {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
			t.Fatal(err)
		}
		base := u.DeepCopy()
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[reconcilers.AnnotationReconcilePolicy] = string(reconcilers.PolicyObserve)
		u.SetAnnotations(a)
		if err := s.Client.Patch(ctx, u, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range res.Objects {
		testenv.Eventually(t, time.Minute, o.GetKind()+" "+o.GetName()+" observed in sync", func() (bool, string) {
			return ready(o, reconcilers.ConditionInSync, reconcilers.ReasonMatches), conditions(t, s, o)
		})
	}
}

func conditions(t *testing.T, s *stacktest.Stack, o *unstructured.Unstructured) string {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(o), u); err != nil {
		return err.Error()
	}
	c, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	d, _, _ := unstructured.NestedSlice(u.Object, "status", "differences")
	return fmt.Sprintf("conditions %v differences %v", c, d)
}

// withoutStates drops provisioningState at every level: Azure moves it on by itself.
func withoutStates(v any) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "provisioningState")
		for _, e := range t {
			withoutStates(e)
		}
	case []any:
		for _, e := range t {
			withoutStates(e)
		}
	}
	return v
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
