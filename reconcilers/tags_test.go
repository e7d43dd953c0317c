package reconcilers

import (
	"context"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/internal/ownermarker"
)

// A spec's tags never carry the operator's: the owner marker in any casing
// (Azure's tag names are case-insensitive), onboarding's tags, the name
// earlier versions wrote. Values and other names are the user's.
func TestReservedTags(t *testing.T) {
	for _, name := range []string{"AZTENANT.IO-OWNER", "aztenant.io-owner", "aztenant.io-onboarded-by", "Aztenant.IO-Created-For", "aztenant.io/onboarded-by", "aztenant.io-anything"} {
		err := reservedTags(map[string]any{"tags": map[string]any{name: "x", "env": "prod"}})
		if err == nil || !strings.Contains(err.Error(), ReservedTagsMessage) || !strings.Contains(err.Error(), name) {
			t.Errorf("tag %s: %v, want a refusal naming it", name, err)
		}
	}
	for _, tags := range []map[string]any{
		{"env": "aztenant.io-owner"}, {"aztenant.iox": "y"}, {"team-aztenant.io-owner": "z"}, {},
	} {
		if err := reservedTags(map[string]any{"tags": tags}); err != nil {
			t.Errorf("tags %v: %v", tags, err)
		}
	}
	if err := reservedTags(map[string]any{"properties": map[string]any{"tags": map[string]any{"aztenant.io-owner": "x"}}}); err != nil {
		t.Errorf("a property named tags below the top: %v", err)
	}
}

// Whoever set them, the operator's tags are read whatever their casing: a
// resource tagged AZTENANT.IO-ONBOARDED-BY is the platform's, and one whose
// marker is spelled in capitals is its owner's.
func TestOwnerTagsAnyCasing(t *testing.T) {
	r := &Reconciler{}
	who, err := r.ownerOf(context.Background(), nil, "/x", map[string]any{"tags": map[string]any{"AZTENANT.IO-ONBOARDED-BY": "team-b"}}, false)
	if err != nil || !strings.Contains(who, `onboarding of Tenant "team-b"`) {
		t.Errorf("ownerOf = %q, %v; want the platform's", who, err)
	}
	if v, ok := ownermarker.Tag(map[string]*string{"AZTENANT.IO-OWNER": ptrTo("m")}, ownermarker.TagOwner); !ok || *v != "m" {
		t.Error("ownermarker.Tag does not find the owner marker in capitals")
	}
	if _, ok := ownermarker.Tag(map[string]string{"aztenant.io-owners": "m"}, ownermarker.TagOwner); ok {
		t.Error("ownermarker.Tag found another tag")
	}
}

func ptrTo(s string) *string { return &s }
