package kinds_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

func resourceGroup(ns, name string, annotations map[string]string, tags map[string]string) *resourcesv1alpha1.ResourceGroup {
	return stacktest.ResourceGroup(ns, name, annotations, tags)
}

func rgID(name string) string { return stacktest.RGID(name) }

// azureTags reads a resource's tags from the emulator's state.
func (s *stack) azureTags(t *testing.T, id string) map[string]string {
	t.Helper()
	raw, err := s.Emu.Resource(id)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Tags map[string]string }
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Tags
}

// The whole life of a resource group: created with two ARM calls as the
// namespace's own principal, an unchanged resync writes nothing, a spec change
// writes once, a change made in the portal is reverted at the next sync, and
// deletion waits until Azure reports it gone.
func TestResourceGroupLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "life"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "life-app", nil, map[string]string{"team": "a"})
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	path := "/resourceGroups/life-app"
	calls := s.ARMCalls(path)
	if got := methods(calls); !createdOnce(got) {
		t.Fatalf("create made %q, want \"GET PUT\"", got)
	}
	if calls[1].PrincipalID != s.Principal[ns] {
		t.Errorf("PUT by %s, want the namespace's principal %s", calls[1].PrincipalID, s.Principal[ns])
	}
	if !strings.EqualFold(rg.Status.ID, rgID("life-app")) {
		t.Errorf("status.id %q", rg.Status.ID)
	}

	// An unchanged resync compares and writes nothing.
	n := len(s.ARMCalls(path))
	rg.Annotations = map[string]string{"touch": "1"}
	if err := s.Client.Update(ctx, rg); err != nil {
		t.Fatal(err)
	}
	if got := s.Settled(t, path, n+1); strings.Count(got, "PUT") != 1 {
		t.Errorf("resync made %q, want one more GET and no PUT", got)
	}

	// A spec change makes exactly one PUT.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	rg.Spec.Tags["env"] = "dev"
	rg.Annotations[reconcilers.AnnotationSyncPeriod] = "1s"
	must(t, s.Client.Update(ctx, rg))
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	until(t, "tags in Azure", func() bool { return s.azureTags(t, rgID("life-app"))["env"] == "dev" })
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 2 {
		t.Errorf("%d PUTs after one spec change, want 2 in all", n)
	}

	// Someone edits the tags in the portal; the next sync puts them back.
	if _, err := s.Emu.PatchResource(ctx, rgID("life-app"), []byte(`{"tags":{"team":"eve"}}`)); err != nil {
		t.Fatal(err)
	}
	until(t, "drift reverted", func() bool {
		tags := s.azureTags(t, rgID("life-app"))
		return tags["team"] == "a" && tags["env"] == "dev"
	})

	// Deleting the object deletes the resource group in Azure, then lets go.
	must(t, s.Client.Delete(ctx, rg))
	until(t, "object gone", func() bool {
		return client.IgnoreNotFound(s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg)) == nil && s.Gone(rg)
	})
	if _, err := s.Emu.Resource(rgID("life-app")); err == nil {
		t.Error("the resource group still exists in Azure")
	}
}

// detach-on-delete and adoption: an existing resource group is adopted only
// when asked, and an adopted or detached one survives the object's deletion.
func TestAdoptionAndDetach(t *testing.T) {
	t.Parallel()
	const ns = "adopt"
	s := newStack(t, ns)
	ctx := t.Context()

	// Created outside aztenant, by the platform principal.
	cred, err := azidentity.NewClientSecretCredential(tenantID, platformClientID, platformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: s.Emu.ClientOptions(), DisableInstanceDiscovery: true})
	must(t, err)
	rgs, err := armresources.NewResourceGroupsClient(subID, cred, &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	must(t, err)
	_, err = rgs.CreateOrUpdate(ctx, "adopt-legacy", armresources.ResourceGroup{Location: to.Ptr("westeurope"), Tags: map[string]*string{"team": to.Ptr("adopt")}}, nil)
	must(t, err)

	rg := resourceGroup(ns, "adopt-legacy", nil, map[string]string{"team": "adopt"})
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionFalse, reconcilers.ReasonAlreadyExists)
	if c := meta.FindStatusCondition(rg.Status.Conditions, reconcilers.ConditionStalled); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("AlreadyExists should be Stalled: %+v", rg.Status.Conditions)
	}
	if n := strings.Count(methods(s.ARMCalls("/resourceGroups/adopt-legacy")), "PUT"); n != 1 {
		t.Errorf("%d PUTs: the refusal must not write (1 is the platform's own create)", n)
	}

	rg.Annotations = map[string]string{reconcilers.AnnotationAdopt: "true"}
	must(t, s.Client.Update(ctx, rg))
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if !rg.Status.Adopted {
		t.Error("status.adopted not set")
	}
	must(t, s.Client.Delete(ctx, rg))
	until(t, "adopted object gone", func() bool { return s.Gone(rg) })
	if _, err := s.Emu.Resource(rgID("adopt-legacy")); err != nil {
		t.Errorf("deleting an adopted resource group's object deleted it in Azure: %v", err)
	}

	// detach-on-delete on a resource aztenant created.
	det := resourceGroup(ns, "adopt-detached", map[string]string{reconcilers.AnnotationReconcilePolicy: "detach-on-delete"}, nil)
	s.Create(t, det)
	s.WaitReady(t, det, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	must(t, s.Client.Delete(ctx, det))
	until(t, "detached object gone", func() bool { return s.Gone(det) })
	if _, err := s.Emu.Resource(rgID("adopt-detached")); err != nil {
		t.Errorf("detach-on-delete deleted the resource group: %v", err)
	}
}

// A resource with no usable identity, or outside its Tenant's bounds, gets a
// clear condition and no ARM call is made for it.
func TestRefusedBeforeAnyARMCall(t *testing.T) {
	t.Parallel()
	const ns = "deny"
	s := newStack(t, ns)
	cases := []struct {
		rg     *resourcesv1alpha1.ResourceGroup
		reason string
		msg    string
	}{
		{resourceGroup(ns, "deny-other-identity", map[string]string{"aztenant.io/identity": "missing"}, nil), "IdentityNotFound", `no Identity "missing"`},
		{resourceGroup(ns, "deny-cross-ns", map[string]string{"aztenant.io/identity": "other/default"}, nil), "InvalidIdentityReference", "without a namespace"},
		{resourceGroup(ns, "prod-db", nil, nil), "TenantPolicyDenied", `resource group "prod-db"`},
	}
	eastus := resourceGroup(ns, "deny-eastus", nil, nil)
	eastus.Spec.Location = "eastus"
	cases = append(cases, struct {
		rg     *resourcesv1alpha1.ResourceGroup
		reason string
		msg    string
	}{eastus, "TenantPolicyDenied", "eastus"})

	for _, tc := range cases {
		s.Create(t, tc.rg)
	}
	for _, tc := range cases {
		t.Run(tc.rg.Name, func(t *testing.T) {
			s.WaitReady(t, tc.rg, metav1.ConditionFalse, tc.reason)
			msg := meta.FindStatusCondition(tc.rg.Status.Conditions, "Ready").Message
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q lacks %q", msg, tc.msg)
			}
			if calls := s.ARMCalls("/resourceGroups/" + tc.rg.Name); len(calls) != 0 {
				t.Errorf("ARM calls were made: %s", methods(calls))
			}
		})
	}
}

// A Tenant change applies to the namespace's objects at once, not at their
// next resync (an hour here) or requeue (five minutes): narrowing the Tenant
// stops a Ready resource group with no ARM call for it, and widening it lets a
// denied one be created.
func TestTenantChangesApplyAtOnce(t *testing.T) {
	t.Parallel()
	const ns = "retenant"
	s := newStack(t, ns)
	ctx := t.Context()
	ready := resourceGroup(ns, "retenant-a", nil, nil)
	s.Create(t, ready)
	s.WaitReady(t, ready, metav1.ConditionTrue, "Succeeded")
	waiting := resourceGroup(ns, "shared-retenant", nil, nil)
	s.Create(t, waiting)
	s.WaitReady(t, waiting, metav1.ConditionFalse, "TenantPolicyDenied")

	setGroups := func(groups ...string) {
		t.Helper()
		var tn tenancyv1alpha1.Tenant
		must(t, s.Client.Get(ctx, client.ObjectKey{Name: ns}, &tn))
		base := tn.DeepCopy() // a patch: the tenancy controller writes the Tenant's status meanwhile
		tn.Spec.ResourceGroups = groups
		must(t, s.Client.Patch(ctx, &tn, client.MergeFrom(base)))
	}

	before := len(s.ARMCalls("/resourceGroups/retenant-a"))
	setGroups("retenant-b-*")
	s.WaitReady(t, ready, metav1.ConditionFalse, "TenantPolicyDenied")
	if msg := stacktest.ReadyMessage(ready); !strings.Contains(msg, `resource group "retenant-a" is not allowed`) {
		t.Errorf("narrowed Tenant: message %q does not name the group", msg)
	}
	if calls := s.ARMCalls("/resourceGroups/retenant-a"); len(calls) != before {
		t.Errorf("ARM calls for a denied resource group: %s", methods(calls[before:]))
	}
	if _, err := s.Emu.Resource(rgID("retenant-a")); err != nil {
		t.Errorf("narrowing the Tenant touched the existing resource group: %v", err)
	}

	setGroups("retenant-*", "shared-retenant")
	s.WaitReady(t, ready, metav1.ConditionTrue, "Succeeded")
	s.WaitReady(t, waiting, metav1.ConditionTrue, "Succeeded")
}

// A resource Azure reports as still provisioning (an operation running, ours
// seen before its resume token or someone else's) is not Ready, and nothing
// is written to it; it becomes Ready when Azure's operation ends.
func TestNotReadyWhileAzureIsProvisioning(t *testing.T) {
	t.Parallel()
	const ns = "busyrg"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "busyrg-a", nil, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, "Succeeded")
	id := rgID("busyrg-a")
	_, err := s.Emu.PatchResource(ctx, id, []byte(`{"properties":{"provisioningState":"Updating"}}`))
	must(t, err)
	puts := func() int { return strings.Count(methods(s.ARMCalls("/resourceGroups/busyrg-a")), "PUT") }
	before := puts()
	s.Touch(t, rg, "while-updating")
	until(t, "Reconciling while Azure reports Updating", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
		c := meta.FindStatusCondition(rg.Status.Conditions, "Ready")
		return c != nil && c.Status == metav1.ConditionUnknown && c.Reason == "Reconciling" && strings.Contains(c.Message, "provisioningState Updating")
	})
	_, err = s.Emu.PatchResource(ctx, id, []byte(`{"properties":{"provisioningState":"Succeeded"}}`))
	must(t, err)
	s.WaitReady(t, rg, metav1.ConditionTrue, "Succeeded")
	if n := puts() - before; n != 0 {
		t.Errorf("%d PUTs while Azure's operation ran", n)
	}
}

// A location given by its display name is the same location to ARM: the
// group is created in westeurope, within a Tenant allowing "westeurope", and
// a resync finds no drift in Azure's "westeurope".
func TestLocationByDisplayName(t *testing.T) {
	t.Parallel()
	const ns = "locdn"
	s := newStack(t, ns)
	rg := resourceGroup(ns, "locdn-app", nil, nil)
	rg.Spec.Location = "West Europe"
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if rg.Status.Location != "westeurope" {
		t.Errorf("status.location %q, want westeurope", rg.Status.Location)
	}
	// The next sync reads (at least once: another may come too) and writes nothing.
	calls := func() []string { return strings.Fields(stacktest.Methods(s.ARMCalls("/resourceGroups/locdn-app"))) }
	s.Touch(t, rg, "resync")
	until(t, "a GET after the create's PUT", func() bool {
		c := calls()
		i := slices.Index(c, "PUT")
		return i >= 0 && len(c) > i+1
	})
	if got := calls(); strings.Count(strings.Join(got, " "), "PUT") != 1 || got[len(got)-1] != "GET" {
		t.Errorf("ARM calls %v, want one PUT, then only GETs (no write on the resync)", got)
	}
}
