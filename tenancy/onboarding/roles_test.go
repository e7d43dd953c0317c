package onboarding_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/api/authorization/roles"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// Onboarding refuses every role the table marks privileged by its actions,
// not a fixed list of names, and keeps Contributor (its default) assignable.
func TestCheckRoleRefusesEveryPrivilegedRole(t *testing.T) {
	for _, d := range roles.BuiltIn() {
		privileged, why := roles.Privileged(d)
		guid, err := onboarding.CheckRole(d.Name)
		var se *onboarding.StepError
		switch {
		case privileged && (!errors.As(err, &se) || se.Reason != onboarding.ReasonRoleNotAllowed || !strings.Contains(se.Message, why)):
			t.Errorf("%s is privileged (%s) but CheckRole says %q, %v", d.Name, why, guid, err)
		case !privileged && (err != nil || guid != d.ID):
			t.Errorf("%s: %q, %v; want %s", d.Name, guid, err, d.ID)
		}
		if privileged != slices.Contains(onboarding.PrivilegedRoles, d.Name) {
			t.Errorf("%s: PrivilegedRoles disagrees with the table", d.Name)
		}
	}
	for _, name := range []string{"Managed Identity Operator", "Key Vault Administrator", "Virtual Machine Contributor", "Azure Kubernetes Service Cluster Admin Role"} {
		if _, err := onboarding.CheckRole(name); err == nil {
			t.Errorf("%s is assignable", name)
		}
	}
	if guid, err := onboarding.CheckRole(onboarding.DefaultRole); err != nil || guid != "b24988ac-6180-42a0-ab88-20f7382dd24c" {
		t.Errorf("the default role %s: %q, %v", onboarding.DefaultRole, guid, err)
	}
}
