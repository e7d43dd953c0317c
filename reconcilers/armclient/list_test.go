package armclient

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
	calls := New(cl, "v")
	items, err := calls.List(t.Context(), "/x")
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
	if _, err := calls.List(t.Context(), "/x"); !errors.Is(err, errForeignNextLink) {
		t.Errorf("a nextLink to another host: %v, want errForeignNextLink", err)
	}
}
