package operator

import (
	"net/http"
	"strings"

	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// replicaAgent appends agent to the User-Agent of each ARM request, once
// (retries pass again).
type replicaAgent string

func (a replicaAgent) Do(req *azpolicy.Request) (*http.Response, error) {
	h := req.Raw().Header
	if ua := h.Get("User-Agent"); !strings.Contains(ua, string(a)) {
		h.Set("User-Agent", strings.TrimSpace(ua+" "+string(a)))
	}
	return req.Next()
}
