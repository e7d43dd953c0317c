package onboarding_test

import (
	"errors"
	"testing"

	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// Role assignment names are part of what is deployed: a changed name would
// make every onboarded Tenant get a second assignment on upgrade.
func TestRoleAssignmentNameIsPinned(t *testing.T) {
	scope := "/subscriptions/00000000-0000-0000-0000-0000000000ab/resourceGroups/team-app"
	rd := onboarding.RoleDefinitionID("00000000-0000-0000-0000-0000000000ab", "b24988ac-6180-42a0-ab88-20f7382dd24c")
	got := onboarding.RoleAssignmentName(scope, "11111111-2222-3333-4444-555555555555", rd)
	if want := "6c81b79b-2f30-584f-abb6-7e21be5aa759"; got != want {
		t.Errorf("RoleAssignmentName = %s, want %s", got, want)
	}
	// ARM IDs are case-insensitive: so is the name.
	if upper := onboarding.RoleAssignmentName("/SUBSCRIPTIONS/00000000-0000-0000-0000-0000000000AB/resourcegroups/TEAM-APP", "11111111-2222-3333-4444-555555555555", rd); upper != got {
		t.Errorf("name depends on case: %s vs %s", upper, got)
	}
	if other := onboarding.RoleAssignmentName(scope, "11111111-2222-3333-4444-555555555556", rd); other == got {
		t.Error("two principals share an assignment name")
	}
}

func TestCheckRole(t *testing.T) {
	for _, role := range []string{"Owner", "User Access Administrator", "Role Based Access Control Administrator", "Superuser"} {
		_, err := onboarding.CheckRole(role)
		var se *onboarding.StepError
		if !errors.As(err, &se) || se.Reason != onboarding.ReasonRoleNotAllowed {
			t.Errorf("%s: %v, want RoleNotAllowed", role, err)
		}
	}
	if guid, err := onboarding.CheckRole("Storage Blob Data Contributor"); err != nil || guid != "ba92f5b4-2d11-453d-a403-e96b0029c9fe" {
		t.Errorf("Storage Blob Data Contributor: %s, %v", guid, err)
	}
}

func TestParsePlatformIdentity(t *testing.T) {
	if got, err := onboarding.ParsePlatformIdentity("aztenant-system/platform"); err != nil || got.Namespace != "aztenant-system" || got.Name != "platform" {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := onboarding.ParsePlatformIdentity(""); err != nil || got.Name != "" {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"platform", "/platform", "ns/", "a/b/c"} {
		if _, err := onboarding.ParsePlatformIdentity(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
