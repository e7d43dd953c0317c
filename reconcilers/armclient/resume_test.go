package armclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// A real SDK resume token for an operation on the ARM endpoint.
func sdkResumeToken(t *testing.T, endpoint string) string {
	t.Helper()
	u, _ := url.Parse(endpoint + "/subscriptions/s/resourceGroups/rg?api-version=2021-04-01")
	resp := &http.Response{
		StatusCode: http.StatusCreated,
		Header: http.Header{
			"Azure-Asyncoperation": {endpoint + "/subscriptions/s/providers/Microsoft.Resources/operations/op1?api-version=2021-04-01"},
			"Content-Type":         {"application/json"},
		},
		Body:    io.NopCloser(strings.NewReader(`{"properties":{"provisioningState":"Accepted"}}`)),
		Request: &http.Request{Method: http.MethodPut, URL: u},
	}
	p, err := runtime.NewPoller[json.RawMessage](resp, runtime.NewPipeline("m", "v", runtime.PipelineOptions{}, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.ResumeToken()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Status is writable by whoever may update the status subresource: a token
// steering the poller to another host would hand it the namespace's bearer
// token, so only tokens that stay on the ARM endpoint are resumed.
func TestResumeTokenStaysOnARMEndpoint(t *testing.T) {
	const arm = "https://management.azure.com"
	tok := sdkResumeToken(t, arm)
	if !strings.Contains(tok, "management.azure.com") {
		t.Fatalf("the SDK's token format changed, the test no longer forges it: %s", tok)
	}
	if err := tokenStaysOn(tok, arm); err != nil {
		t.Errorf("genuine token refused: %v", err)
	}
	for name, forged := range map[string]string{
		"other host":      strings.ReplaceAll(tok, "management.azure.com", "attacker.example"),
		"plain http":      strings.ReplaceAll(tok, "https://management.azure.com", "http://management.azure.com"),
		"host with port":  strings.ReplaceAll(tok, "management.azure.com", "management.azure.com:8443"),
		"userinfo prefix": strings.ReplaceAll(tok, "https://management.azure.com", "https://management.azure.com@attacker.example"),
	} {
		if forged == tok {
			t.Fatalf("%s: nothing replaced in %s", name, tok)
		}
		if err := tokenStaysOn(forged, arm); !errors.Is(err, errForeignResumeToken) {
			t.Errorf("%s: %v, want errForeignResumeToken", name, err)
		}
	}
}
