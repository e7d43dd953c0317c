package emulator_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// Lists as ARM answers them, read through the SDK's pagers: filtered by what
// the caller may read (not refused), by $filter on resourceGroup,
// resourceType and tags, limited by $top, and continued by nextLink past
// one page.
func TestListsAsARMAnswersThem(t *testing.T) {
	const readerID = "44444444-0000-4000-8000-000000000004"
	f := newFixture(t, func(c *emulator.Config) {
		c.ListPageSize = 3
		c.Seed.Principals = append(c.Seed.Principals, emulator.Principal{ClientID: readerID, TenantID: tenantID, ClientSecret: "r"})
	})
	cred := f.platformCred(t)
	res := f.resources(t, cred)
	for _, rg := range []string{"list-a", "list-b"} {
		f.createGroup(t, cred, rg)
		for i, name := range []string{"w1", "w2", "w3", "w4"} {
			tags := map[string]*string{"team": to.Ptr(rg)}
			if i%2 == 0 {
				tags["tier"] = to.Ptr("gold")
			}
			if _, err := put(t, res, rgScope+rg+"/providers/"+widgetsType+"/"+name, "2024-01-01",
				armresources.GenericResource{Location: to.Ptr("westeurope"), Tags: tags}); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := func(c *armresources.Client, opts *armresources.ClientListOptions) (out []string, pages int) {
		t.Helper()
		p := c.NewListPager(opts)
		for p.More() {
			page, err := p.NextPage(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, r := range page.Value {
				out = append(out, *r.ID)
			}
		}
		return out, pages
	}

	all, pages := names(res, nil)
	if len(all) != 8 || pages != 3 {
		t.Errorf("the subscription's resources: %d in %d pages, want 8 in 3 (pages of 3)", len(all), pages)
	}
	if got, _ := names(res, &armresources.ClientListOptions{Filter: to.Ptr("resourceGroup eq 'list-b'")}); len(got) != 4 {
		t.Errorf("$filter resourceGroup: %d resources, want 4: %v", len(got), got)
	}
	if got, _ := names(res, &armresources.ClientListOptions{Filter: to.Ptr("resourceType eq 'microsoft.test/WIDGETS' and tagName eq 'tier' and tagValue eq 'gold'")}); len(got) != 4 {
		t.Errorf("$filter resourceType and tags: %d resources, want 4: %v", len(got), got)
	}
	if got, pages := names(res, &armresources.ClientListOptions{Top: to.Ptr[int32](2)}); len(got) != 8 || pages != 4 {
		t.Errorf("$top 2: %d in %d pages, want 8 in 4", len(got), pages)
	}

	// A principal with a role on one group lists only what it may read.
	readerOID, err := f.emu.PrincipalID(readerID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{PrincipalID: readerOID, Role: "Reader", Scope: rgScope + "list-a"}}}); err != nil {
		t.Fatal(err)
	}
	rc, err := azidentity.NewClientSecretCredential(tenantID, readerID, "r",
		&azidentity.ClientSecretCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := names(f.resources(t, rc), nil)
	if len(mine) != 4 || slices.ContainsFunc(mine, func(id string) bool { return !strings.Contains(strings.ToLower(id), "/resourcegroups/list-a/") }) {
		t.Errorf("the reader sees %v, want list-a's 4 resources only", mine)
	}
	groups := f.groups(t, rc).NewListPager(nil)
	var seen []string
	for groups.More() {
		page, err := groups.NextPage(ctxT(t))
		if err != nil {
			t.Fatalf("the reader listing the subscription's groups: %v, want 200 with what it may read", err)
		}
		for _, g := range page.Value {
			seen = append(seen, *g.Name)
		}
	}
	if !slices.Equal(seen, []string{"list-a"}) {
		t.Errorf("the reader sees groups %v, want [list-a]", seen)
	}
}
