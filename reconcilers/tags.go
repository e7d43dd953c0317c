package reconcilers

import (
	"fmt"
	"sort"
	"strings"
)

// This file keeps the tags aztenant writes out of specs.

// ReservedTagsMessage is why a spec may not carry a tag whose name begins
// with aztenant.io- (in any casing: Azure's tag names are case-insensitive):
// the operator's owner marker (TagOwner) and onboarding's tags
// (TagOnboardedBy, TagCreatedFor) decide who a resource belongs to. The
// CRDs refuse them at admission with the same words; objects stored before
// that rule are refused here.
const ReservedTagsMessage = "tags beginning with aztenant.io- are reserved for the operator"

// reservedTagPrefixes, lower case: the names of today and of earlier
// versions (aztenant.io/onboarded-by, which Azure refuses but the emulator
// accepted).
var reservedTagPrefixes = []string{"aztenant.io-", "aztenant.io/"}

// IsReservedTag reports whether a tag name is the operator's.
func IsReservedTag(name string) bool {
	l := strings.ToLower(name)
	for _, p := range reservedTagPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// reservedTags refuses a desired body whose tags (the spec's) hold a
// reserved name: written, it would make the resource another object's or
// the platform's (a network tagged as another Tenant's onboarding is refused
// to its own object, and left behind in Azure when it is deleted).
func reservedTags(body map[string]any) error {
	tags, _ := body["tags"].(map[string]any)
	var bad []string
	for k := range tags {
		if IsReservedTag(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("spec.tags: %s: remove %s", ReservedTagsMessage, strings.Join(bad, ", "))
}
