package reconcilers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/aztenant/aztenant/tenancy/armlimit"
)

// codeConcurrentFICWrites is ARM's code for a federated identity credential
// written while another one of the same managed identity is being written.
const codeConcurrentFICWrites = "ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity"

// codePrincipalNotFound is ARM's 400 for a role assignment naming a principal
// the directory does not know (yet).
const codePrincipalNotFound = "PrincipalNotFound"

// codeAnotherOperationInProgress is ARM's 409 for a write while an operation
// on the same resource runs.
const codeAnotherOperationInProgress = "AnotherOperationInProgress"

// classify sorts an ARM error: throttling, server errors and an operation
// already running are transient and honour Retry-After; 403 names who lacked
// what where, and is looked at again now and then (a role granted in Azure
// reports no event); other 4xx are the spec's fault (or the environment's,
// for conflicts such as a name taken or a lock, looked at again every minute).
// The outcome unwraps to err.
func classify(err error, principal string) *Outcome {
	o := classifyResponse(err, principal)
	o.cause = err
	return o
}

func classifyResponse(err error, principal string) *Outcome {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return newOutcome(ReasonAzureUnavailable, err.Error()).waiting(waitNoAnswer)
	}
	msg := fmt.Sprintf("%d %s: %s", re.StatusCode, re.ErrorCode, errorMessageOf(re))
	if re.RawResponse != nil && re.RawResponse.Request != nil {
		msg = re.RawResponse.Request.Method + " " + msg
	}
	switch {
	case re.StatusCode == http.StatusTooManyRequests || re.StatusCode >= 500 || re.StatusCode == http.StatusRequestTimeout:
		return retryAfter(newOutcome(ReasonAzureUnavailable, msg), re)
	case re.StatusCode == http.StatusForbidden || re.StatusCode == http.StatusUnauthorized:
		return newOutcome(ReasonAuthorizationFailed, fmt.Sprintf("identity %s is not allowed to do this: %s", principal, msg))
	case re.StatusCode == http.StatusConflict && re.ErrorCode == codeConcurrentFICWrites:
		// Azure refuses a credential write while another of the same identity
		// is in flight: nothing is wrong, the next try a moment later succeeds.
		return newOutcome(ReasonAzureUnavailable, msg).waiting(waitConcurrentWrite)
	case re.StatusCode == http.StatusConflict && re.ErrorCode == codeAnotherOperationInProgress:
		return retryAfter(newOutcome(ReasonAzureUnavailable, msg), re)
	case re.StatusCode == http.StatusBadRequest && re.ErrorCode == codePrincipalNotFound:
		// Entra replicates a principal created a moment ago for a while
		// (Azure's message says so, and how principalType avoids it): look
		// again in seconds, not at the next spec change.
		// A principal ID that is simply wrong never replicates: the retries
		// back off (5 s doubling to 5 min) instead of polling every 5 s.
		return newOutcome(ReasonAzureRejected, msg).waiting(waitNotReplicated)
	case re.StatusCode == http.StatusConflict:
		// A name taken, a lock, a location that cannot change: retry, without
		// hammering, in case the environment changed.
		return newOutcome(ReasonAzureRejected, msg).waiting(waitConflict)
	default:
		return newOutcome(ReasonAzureRejected, msg)
	}
}

// retryAfter honours ARM's Retry-After, else the reason's wait.
func retryAfter(o *Outcome, re *azcore.ResponseError) *Outcome {
	return o.after(armlimit.RetryAfter(re.RawResponse, o.RequeueAfter))
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
