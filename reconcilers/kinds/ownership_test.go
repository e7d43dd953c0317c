package kinds_test

import (
	"context"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

var rgKind = schema.GroupKind{Group: "resources.aztenant.io", Kind: "ResourceGroup"}

// markerOf is the owner marker the operator writes for a ResourceGroup object.
func (s *stack) markerOf(t *testing.T, ns, name string) string {
	t.Helper()
	var sys corev1.Namespace
	must(t, s.Client.Get(t.Context(), client.ObjectKey{Name: metav1.NamespaceSystem}, &sys))
	return reconcilers.OwnerMarker(string(sys.UID), ns, rgKind, name)
}

// writes lists the ARM writes on a path since an audit position.
func (s *stack) writes(since uint64, suffix string) []emulator.AuditEntry {
	var out []emulator.AuditEntry
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"}) {
		if e.Method != "GET" && e.Method != "HEAD" && strings.HasSuffix(strings.ToLower(e.Path), strings.ToLower(suffix)) {
			out = append(out, e)
		}
	}
	return out
}

// A resource aztenant creates carries its object's owner marker. Tags the
// spec does not manage (added in the portal or by Azure Policy) are kept and
// are not drift; a tag removed from the spec is removed from Azure.
func TestOwnerMarkerAndForeignTags(t *testing.T) {
	t.Parallel()
	const ns = "mark"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "mark-app", nil, map[string]string{"team": "a", "env": "dev"})
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id := rgID("mark-app")
	marker := s.markerOf(t, ns, "mark-app")
	if tags := s.azureTags(t, id); tags[reconcilers.TagOwner] != marker || tags["team"] != "a" {
		t.Fatalf("tags in Azure %v, want the spec's and %s=%s", tags, reconcilers.TagOwner, marker)
	}

	// Azure Policy adds a tag: not the spec's, so no write at the next sync.
	_, err := s.Emu.PatchResource(ctx, id, []byte(`{"tags":{"costcenter":"42"}}`))
	must(t, err)
	before := lastSeq(s.Stack)
	s.Touch(t, rg, "resync")
	s.Settled(t, "/resourceGroups/mark-app", 3)
	if w := s.writes(before, "/resourceGroups/mark-app"); len(w) != 0 {
		t.Errorf("a tag the spec does not manage made %s", methods(w))
	}

	// The spec drops env: it goes from Azure, costcenter stays.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	rg.Spec.Tags = map[string]string{"team": "a"}
	must(t, s.Client.Update(ctx, rg))
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	until(t, "env removed, costcenter kept", func() bool {
		tags := s.azureTags(t, id)
		_, env := tags["env"]
		return !env && tags["costcenter"] == "42" && tags["team"] == "a" && tags[reconcilers.TagOwner] == marker
	})
	if got := rg.Status.ManagedTags; len(got) != 1 || got[0] != "team" {
		t.Errorf("status.managedTags %v, want [team]", got)
	}
}

// Adoption does not take over what another object owns: another object of
// the namespace (named), or of another namespace (not named), is refused
// with OwnedByAnother and no write, so two objects never fight over one
// resource. Once the owner releases it, it can be adopted; the releasing
// object then writes nothing and its deletion leaves the resource in Azure.
func TestAdoptionRespectsOwnership(t *testing.T) {
	t.Parallel()
	const ns, other = "own", "own-b"
	s := newStack(t, ns, other)
	ctx := t.Context()
	// The other namespace's Tenant may use the same groups.
	var tn tenancyv1alpha1.Tenant
	must(t, s.Client.Get(ctx, client.ObjectKey{Name: other}, &tn))
	base := tn.DeepCopy() // a patch: the tenancy controller writes the Tenant's status meanwhile
	tn.Spec.ResourceGroups = append(tn.Spec.ResourceGroups, "own-*")
	must(t, s.Client.Patch(ctx, &tn, client.MergeFrom(base)))

	first := resourceGroup(ns, "own-data", nil, map[string]string{"team": "a"})
	s.Create(t, first)
	s.WaitReady(t, first, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	path := "/resourceGroups/own-data"
	mark := lastSeq(s.Stack)

	adopt := map[string]string{reconcilers.AnnotationAdopt: "true"}
	second := resourceGroup(ns, "second", adopt, map[string]string{"team": "b"})
	second.Spec.AzureName = "own-data"
	s.Create(t, second)
	s.WaitReady(t, second, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	if msg := stacktest.ReadyMessage(second); !strings.Contains(msg, `is owned by ResourceGroup "own-data" of this namespace`) || !strings.Contains(msg, reconcilers.AnnotationRelease) {
		t.Errorf("message %q does not name the owner and how it lets go", msg)
	}
	third := resourceGroup(other, "grab", adopt, map[string]string{"team": "c"})
	third.Spec.AzureName = "own-data"
	s.Create(t, third)
	s.WaitReady(t, third, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	if msg := stacktest.ReadyMessage(third); !strings.Contains(msg, "another aztenant ResourceGroup (of another namespace)") || strings.Contains(msg, `"own-data" of`) {
		t.Errorf("message %q: want the owner left unnamed across namespaces", msg)
	}
	s.Touch(t, second, "again")
	s.Touch(t, third, "again")
	s.Settled(t, path, 6) // first: GET PUT; second, third: GET each, twice
	if w := s.writes(mark, path); len(w) != 0 {
		t.Errorf("refused adoptions wrote: %s", methods(w))
	}
	if tags := s.azureTags(t, rgID("own-data")); tags["team"] != "a" || tags[reconcilers.TagOwner] != s.markerOf(t, ns, "own-data") {
		t.Errorf("the owner's resource group changed: %v", tags)
	}

	// The owner releases it; the second object adopts it.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(first), first))
	first.Annotations = map[string]string{reconcilers.AnnotationRelease: "true"}
	must(t, s.Client.Update(ctx, first))
	s.WaitReady(t, first, metav1.ConditionTrue, reconcilers.ReasonReleased)
	s.Touch(t, second, "after-release")
	s.WaitReady(t, second, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if tags := s.azureTags(t, rgID("own-data")); tags["team"] != "b" || tags[reconcilers.TagOwner] != s.markerOf(t, ns, "second") {
		t.Errorf("after adoption: tags %v, want the adopter's", tags)
	}
	if !second.Status.Adopted {
		t.Error("status.adopted not set")
	}

	// The released object's deletion leaves the group; the third still may not take it.
	mark = lastSeq(s.Stack)
	must(t, s.Client.Delete(ctx, first))
	until(t, "released object gone", func() bool { return s.Gone(first) })
	s.Touch(t, third, "after-delete")
	s.WaitReady(t, third, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	if w := s.writes(mark, path); len(w) != 0 {
		t.Errorf("writes after the release: %s", methods(w))
	}
	if _, err := s.Emu.Resource(rgID("own-data")); err != nil {
		t.Errorf("deleting the released object deleted the group: %v", err)
	}
}

// Two objects adopting one resource that nobody marked: the first to adopt
// owns it, the other is refused, and a resync of both writes nothing (they
// used to PUT in turn, tags flipping).
func TestNoFightOverAnUnmarkedResource(t *testing.T) {
	t.Parallel()
	const ns, other = "fight", "fight-b"
	s := newStack(t, ns, other)
	ctx := t.Context()
	var tn tenancyv1alpha1.Tenant
	must(t, s.Client.Get(ctx, client.ObjectKey{Name: other}, &tn))
	// A patch, not an update: the tenancy controller writes the Tenant's
	// status meanwhile, and an update of a read copy may conflict with it.
	base := tn.DeepCopy()
	tn.Spec.ResourceGroups = append(tn.Spec.ResourceGroups, "fight-*")
	must(t, s.Client.Patch(ctx, &tn, client.MergeFrom(base)))
	rgs, err := armresources.NewResourceGroupsClient(subID, s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	must(t, err)
	_, err = rgs.CreateOrUpdate(ctx, "fight-legacy", armresources.ResourceGroup{Location: to.Ptr("westeurope"), Tags: map[string]*string{"owner": to.Ptr("platform")}}, nil)
	must(t, err)

	adopt := map[string]string{reconcilers.AnnotationAdopt: "true"}
	a := resourceGroup(ns, "fight-legacy", adopt, map[string]string{"team": "a"})
	s.Create(t, a)
	s.WaitReady(t, a, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	b := resourceGroup(other, "fight-legacy", adopt, map[string]string{"team": "b"})
	b.Annotations[reconcilers.AnnotationReconcilePolicy] = "manage"
	s.Create(t, b)
	s.WaitReady(t, b, metav1.ConditionFalse, reconcilers.ReasonOwnedByAnother)
	mark := lastSeq(s.Stack)
	for i := range 3 {
		n := len(s.ARMCalls("/resourceGroups/fight-legacy"))
		s.Touch(t, a, "sync"+string(rune('0'+i)))
		s.Touch(t, b, "sync"+string(rune('0'+i)))
		s.Settled(t, "/resourceGroups/fight-legacy", n+2) // a resync GET each
	}
	if w := s.writes(mark, "/resourceGroups/fight-legacy"); len(w) != 0 {
		t.Errorf("resyncs wrote: %s", methods(w))
	}
	tags := s.azureTags(t, rgID("fight-legacy"))
	if tags["team"] != "a" || tags["owner"] != "platform" || tags[reconcilers.TagOwner] != s.markerOf(t, ns, "fight-legacy") {
		t.Errorf("tags %v: want the first adopter's, and the platform's own tag kept", tags)
	}

	// The refused one, deleted with reconcile-policy manage, deletes nothing.
	must(t, s.Client.Delete(context.Background(), b))
	until(t, "refused object gone", func() bool { return s.Gone(b) })
	if w := s.writes(mark, "/resourceGroups/fight-legacy"); len(w) != 0 {
		t.Errorf("deleting the refused object wrote: %s", methods(w))
	}
}
