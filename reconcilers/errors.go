package reconcilers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/aztenant/aztenant/tenancy/armlimit"
)

// classified is an ARM failure sorted into what the reconciler does next.
type classified struct {
	state state
	// retryAfter > 0: transient, try again then; 0 with stalled: wait for a
	// spec change.
	retryAfter time.Duration
}

// classify sorts an ARM error: throttling and server errors are transient and
// honour Retry-After; 403 names who lacked what where; other 4xx are the
// spec's fault and stall until it changes.
// codeConcurrentFICWrites is ARM's code for a federated identity credential
// written while another one of the same managed identity is being written.
const codeConcurrentFICWrites = "ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity"

func classify(err error, principal string) classified {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return classified{state: failed(ReasonAzureUnavailable, err.Error(), false), retryAfter: 30 * time.Second}
	}
	msg := fmt.Sprintf("%d %s: %s", re.StatusCode, re.ErrorCode, errorMessageOf(re))
	if re.RawResponse != nil && re.RawResponse.Request != nil {
		msg = re.RawResponse.Request.Method + " " + msg
	}
	switch {
	case re.StatusCode == http.StatusTooManyRequests || re.StatusCode >= 500 || re.StatusCode == http.StatusRequestTimeout:
		return classified{state: failed(ReasonAzureUnavailable, msg, false), retryAfter: armlimit.RetryAfter(re.RawResponse, 15*time.Second)}
	case re.StatusCode == http.StatusForbidden || re.StatusCode == http.StatusUnauthorized:
		return classified{state: failed(ReasonAuthorizationFailed,
			fmt.Sprintf("identity %s is not allowed to do this: %s", principal, msg), false), retryAfter: 5 * time.Minute}
	case re.StatusCode == http.StatusConflict && re.ErrorCode == codeConcurrentFICWrites:
		// Azure refuses a credential write while another of the same identity
		// is in flight: nothing is wrong, the next try a moment later succeeds.
		return classified{state: failed(ReasonAzureUnavailable, msg, false), retryAfter: jitter(2 * time.Second)}
	case re.StatusCode == http.StatusConflict:
		// Conflicts are often another operation in progress: retry, without hammering.
		return classified{state: failed(ReasonAzureRejected, msg, false), retryAfter: time.Minute}
	default:
		return classified{state: failed(ReasonAzureRejected, msg, true)}
	}
}

// errorMessageOf reads ARM's {"error":{"code","message"}} from the response
// (azcore keeps the body readable after building the error).
func errorMessageOf(re *azcore.ResponseError) string {
	if re.RawResponse == nil {
		return re.Error()
	}
	if body, err := runtime.Payload(re.RawResponse); err == nil {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
			return e.Error.Message
		}
	}
	return http.StatusText(re.StatusCode)
}
