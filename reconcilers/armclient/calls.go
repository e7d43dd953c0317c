package armclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Calls performs generic by-ID calls through an identity's ARM pipeline
// (retries honouring Retry-After, bearer tokens) with raw JSON bodies, so no
// property unknown to an SDK model is lost.
type Calls struct {
	client     *arm.Client
	apiVersion string
}

// New returns the calls made through client with apiVersion, the kind's.
func New(client *arm.Client, apiVersion string) Calls {
	return Calls{client: client, apiVersion: apiVersion}
}

// WithAPIVersion returns the same client's calls with another api-version
// (a kind's Hooks.Verify reads resources of other types).
func (a Calls) WithAPIVersion(apiVersion string) Calls {
	return Calls{client: a.client, apiVersion: apiVersion}
}

// Get returns the resource body, or nil when it does not exist.
func (a Calls) Get(ctx context.Context, id string) (map[string]any, error) {
	resp, err := a.do(ctx, http.MethodGet, id, nil)
	if err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
			return nil, nil
		}
		return nil, err
	}
	return decodeBody(resp)
}

// Put starts a create-or-update; the poller is done at once for synchronous types.
func (a Calls) Put(ctx context.Context, id string, body map[string]any) (*runtime.Poller[json.RawMessage], error) {
	resp, err := a.do(ctx, http.MethodPut, id, body, http.StatusOK, http.StatusCreated, http.StatusAccepted)
	if err != nil {
		return nil, err
	}
	return runtime.NewPoller[json.RawMessage](resp, a.client.Pipeline(), nil)
}

// Delete starts a deletion; a resource already gone is success.
func (a Calls) Delete(ctx context.Context, id string) (*runtime.Poller[json.RawMessage], error) {
	resp, err := a.do(ctx, http.MethodDelete, id, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent, http.StatusNotFound)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	return runtime.NewPoller[json.RawMessage](resp, a.client.Pipeline(), nil)
}

// Resume continues a long-running operation from its resume token. The token
// lives in status, which a user with status access could write: a token
// pointing anywhere but the ARM endpoint would send the namespace's bearer
// token there, so such a token is refused (and the caller falls back to GET).
func (a Calls) Resume(token string) (*runtime.Poller[json.RawMessage], error) {
	if err := tokenStaysOn(token, a.client.Endpoint()); err != nil {
		return nil, err
	}
	return runtime.NewPollerFromResumeToken[json.RawMessage](token, a.client.Pipeline(), nil)
}

// errForeignResumeToken: a resume token naming a URL off the ARM endpoint.
var errForeignResumeToken = errors.New("resume token names a URL outside the ARM endpoint")

// tokenStaysOn checks that every URL in a resume token (whatever its layout,
// which is the SDK's) has the ARM endpoint's scheme and host.
func tokenStaysOn(token, endpoint string) error {
	ep, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal([]byte(token), &v); err != nil {
		return err
	}
	var walk func(any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		case string:
			// Tokens nest JSON documents as strings.
			if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") {
				var inner any
				if json.Unmarshal([]byte(t), &inner) == nil {
					return walk(inner)
				}
			}
			u, err := url.Parse(v)
			if err != nil || u.Host == "" {
				return nil
			}
			if !strings.EqualFold(u.Scheme, ep.Scheme) || !strings.EqualFold(u.Host, ep.Host) {
				return errForeignResumeToken
			}
		}
		return nil
	}
	return walk(v)
}

// Action POSTs to id/action (listKeys and the like).
func (a Calls) Action(ctx context.Context, id, action string) (map[string]any, error) {
	resp, err := a.do(ctx, http.MethodPost, id+"/"+action, nil)
	if err != nil {
		return nil, err
	}
	return decodeBody(resp)
}

// errForeignNextLink: a list page whose nextLink leaves the ARM endpoint.
var errForeignNextLink = errors.New("list nextLink names a URL outside the ARM endpoint")

// List returns every item of a collection (an ID without its last name), as
// raw JSON, following nextLink: the pages stay on the ARM endpoint, or the
// bearer token would go wherever a response pointed.
func (a Calls) List(ctx context.Context, collection string) ([]json.RawMessage, error) {
	ep, err := url.Parse(a.client.Endpoint())
	if err != nil {
		return nil, err
	}
	resp, err := a.do(ctx, http.MethodGet, collection, nil)
	var items []json.RawMessage
	for pages := 0; ; pages++ {
		if err != nil {
			return nil, err
		}
		var page struct {
			Value    []json.RawMessage `json:"value"`
			NextLink string            `json:"nextLink"`
		}
		if err := runtime.UnmarshalAsJSON(resp, &page); err != nil {
			return nil, err
		}
		items = append(items, page.Value...)
		if page.NextLink == "" {
			return items, nil
		}
		u, perr := url.Parse(page.NextLink)
		if perr != nil || !strings.EqualFold(u.Scheme, ep.Scheme) || !strings.EqualFold(u.Host, ep.Host) {
			return nil, errForeignNextLink
		}
		if pages >= maxListPages {
			return nil, fmt.Errorf("list %s: more than %d pages", collection, maxListPages)
		}
		resp, err = a.next(ctx, page.NextLink)
	}
}

// maxListPages bounds a list: a service answering nextLink forever must not
// hold a worker forever.
const maxListPages = 1000

// next gets a nextLink as ARM gave it (it carries its own api-version and
// skip token).
func (a Calls) next(ctx context.Context, link string) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, http.MethodGet, link)
	if err != nil {
		return nil, err
	}
	req.Raw().Header.Set("Accept", "application/json")
	resp, err := a.client.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}

func (a Calls) do(ctx context.Context, method, id string, body any, ok ...int) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, method, runtime.JoinPaths(a.client.Endpoint(), id))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", a.apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header.Set("Accept", "application/json")
	if body != nil {
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			return nil, err
		}
	}
	resp, err := a.client.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if len(ok) == 0 {
		ok = []int{http.StatusOK}
	}
	if !runtime.HasStatusCode(resp, ok...) {
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}

func decodeBody(resp *http.Response) (map[string]any, error) {
	var m map[string]any
	if err := runtime.UnmarshalAsJSON(resp, &m); err != nil {
		return nil, err
	}
	return m, nil
}
