package reconcilers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
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
func classify(err error, principal string) classified {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return classified{state: failed(ReasonAzureUnavailable, err.Error(), false), retryAfter: 30 * time.Second}
	}
	msg := fmt.Sprintf("%s %d %s: %s", re.RawResponse.Request.Method, re.StatusCode, re.ErrorCode, armMessage(re))
	switch {
	case re.StatusCode == http.StatusTooManyRequests || re.StatusCode >= 500 || re.StatusCode == http.StatusRequestTimeout:
		return classified{state: failed(ReasonAzureUnavailable, msg, false), retryAfter: retryAfter(re.RawResponse, 15*time.Second)}
	case re.StatusCode == http.StatusForbidden || re.StatusCode == http.StatusUnauthorized:
		return classified{state: failed(ReasonAuthorizationFailed,
			fmt.Sprintf("identity %s is not allowed to do this: %s", principal, msg), false), retryAfter: 5 * time.Minute}
	case re.StatusCode == http.StatusConflict:
		// Conflicts are often another operation in progress: retry, without hammering.
		return classified{state: failed(ReasonAzureRejected, msg, false), retryAfter: time.Minute}
	default:
		return classified{state: failed(ReasonAzureRejected, msg, true)}
	}
}

// armMessage extracts ARM's error message from the response error text.
func armMessage(re *azcore.ResponseError) string {
	if re.RawResponse == nil {
		return re.Error()
	}
	return errorMessageOf(re)
}

func retryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if resp == nil {
		return fallback
	}
	for _, h := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v, err := strconv.Atoi(resp.Header.Get(h)); err == nil && v > 0 {
			return time.Duration(v) * time.Millisecond
		}
	}
	if v, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return fallback
}

// errorMessageOf reads ARM's {"error":{"code","message"}} from the response
// (azcore keeps the body readable after building the error).
func errorMessageOf(re *azcore.ResponseError) string {
	body, err := runtime.Payload(re.RawResponse)
	if err == nil {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
			return e.Error.Message
		}
	}
	return http.StatusText(re.StatusCode)
}
