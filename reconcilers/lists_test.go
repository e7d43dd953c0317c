package reconcilers

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

func TestCollectionOf(t *testing.T) {
	const rg = "/subscriptions/s/resourceGroups/rg"
	for _, c := range []struct{ id, coll, typ string }{
		{rg, "/subscriptions/s/resourceGroups", "resourcegroups"},
		{rg + "/providers/Microsoft.Storage/storageAccounts/sa", rg + "/providers/Microsoft.Storage/storageAccounts", "microsoft.storage/storageaccounts"},
		{rg + "/providers/Microsoft.Network/virtualNetworks/vn/subnets/a", rg + "/providers/Microsoft.Network/virtualNetworks/vn/subnets", "microsoft.network/virtualnetworks/subnets"},
		{rg + "/providers/Microsoft.Network/virtualNetworks/vn/providers/Microsoft.Authorization/roleAssignments/g", rg + "/providers/Microsoft.Network/virtualNetworks/vn/providers/Microsoft.Authorization/roleAssignments", "microsoft.authorization/roleassignments"},
		{"noslash", "", ""},
	} {
		coll, typ := collectionOf(c.id)
		if coll != c.coll || typ != c.typ {
			t.Errorf("collectionOf(%s) = %q, %q; want %q, %q", c.id, coll, typ, c.coll, c.typ)
		}
	}
}

type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "t", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// Collections come due at their own jitter, the same for all their members.
func TestNextCheckIsTheCollections(t *testing.T) {
	at := time.Now()
	a := nextCheck(listed{at: at, collection: "/subscriptions/s/resourcegroups/a/providers/p/t"}, time.Hour)
	b := nextCheck(listed{at: at, collection: "/subscriptions/s/resourcegroups/a/providers/p/t"}, time.Hour)
	if d := a - b; d < -time.Second || d > time.Second {
		t.Errorf("two members of one collection are due %s apart", d)
	}
	if a < 59*time.Minute || a > 67*time.Minute {
		t.Errorf("due in %s, want one period plus at most a tenth", a)
	}
}
