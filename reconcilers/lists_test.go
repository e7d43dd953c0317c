package reconcilers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
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

// A listing follows nextLink across pages, and refuses a nextLink off the
// ARM endpoint: the next page would get the namespace's bearer token.
func TestListFollowsNextLinkOnTheEndpointOnly(t *testing.T) {
	var foreign string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		base := "https://" + r.Host
		switch r.URL.Query().Get("page") {
		case "":
			fmt.Fprintf(w, `{"value":[{"id":"/x/a"}],"nextLink":%q}`, base+r.URL.Path+"?api-version=v&page=2")
		case "2":
			link := ""
			if foreign != "" {
				link = fmt.Sprintf(`,"nextLink":%q`, foreign)
			}
			fmt.Fprintf(w, `{"value":[{"id":"/x/b"},{"id":"/x/c"}]%s}`, link)
		}
	}))
	defer srv.Close()
	cl, err := arm.NewClient("m", "v1.0.0", staticToken{}, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud:     cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://management.core.windows.net/"}}},
		Transport: srv.Client(),
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}, DisableRPRegistration: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := armCalls{client: cl, apiVersion: "v"}
	items, err := calls.list(t.Context(), "/x")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		var v struct{ ID string }
		if err := json.Unmarshal(it, &v); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
	}
	if got := strings.Join(ids, " "); got != "/x/a /x/b /x/c" {
		t.Errorf("listed %q over two pages, want /x/a /x/b /x/c", got)
	}
	foreign = "https://attacker.example/x?page=3"
	if _, err := calls.list(t.Context(), "/x"); !errors.Is(err, errForeignNextLink) {
		t.Errorf("a nextLink to another host: %v, want errForeignNextLink", err)
	}
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
