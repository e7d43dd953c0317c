package onboarding

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// ConditionOnboarded is the Tenant condition onboarding maintains.
const ConditionOnboarded = tenancyv1alpha1.ConditionOnboarded

// Reasons of the Onboarded condition and of failed steps.
const (
	ReasonOnboarded                     = "Onboarded"
	ReasonInProgress                    = "InProgress"
	ReasonOffboarding                   = "Offboarding"
	ReasonPlatformIdentityNotConfigured = "PlatformIdentityNotConfigured"
	ReasonPlatformIdentityMissing       = "PlatformIdentityMissing"
	ReasonPlatformIdentityServed        = "PlatformIdentityServed"
	ReasonPlatformIdentityRejected      = "PlatformIdentityRejected"
	ReasonIssuerUnknown                 = "IssuerUnknown"
	ReasonRoleNotAllowed                = "RoleNotAllowed"
	ReasonResourceGroupNotAllowed       = "ResourceGroupNotAllowed"
	ReasonLocationNotAllowed            = "LocationNotAllowed"
	ReasonAzureForbidden                = "AzureForbidden"
	ReasonAzureError                    = "AzureError"
	ReasonConflict                      = "AlreadyExists"
	ReasonWaiting                       = "WaitingForPreviousStep"
	ReasonNamespaceConflict             = "NamespaceConflict"
)

// StepError is why a step failed, in the words the status shows.
type StepError struct {
	Reason  string
	Message string
	Err     error
}

func (e *StepError) Error() string { return e.Message }
func (e *StepError) Unwrap() error { return e.Err }

// Terminal reports whether only a spec or permission change can help.
func (e *StepError) Terminal() bool {
	return e.Reason != ReasonAzureError
}

// azureError turns an ARM failure into a StepError carrying ARM's own code
// and message (a 403 says which action on which scope was refused).
func azureError(what string, err error) *StepError {
	var afe *azidentity.AuthenticationFailedError
	if errors.As(err, &afe) {
		return &StepError{Reason: ReasonPlatformIdentityRejected, Err: err,
			Message: fmt.Sprintf("%s: Entra ID refused the platform identity's token: %s", what, strings.TrimSpace(aadsts.FindString(afe.Error())))}
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return &StepError{Reason: ReasonAzureError, Message: fmt.Sprintf("%s: %v", what, err), Err: err}
	}
	msg := re.ErrorCode
	if re.RawResponse != nil {
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if b, _ := runtime.Payload(re.RawResponse); json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
			msg = body.Error.Code + ": " + body.Error.Message
		}
	}
	reason := ReasonAzureError
	if re.StatusCode == http.StatusForbidden {
		reason = ReasonAzureForbidden
	}
	return &StepError{Reason: reason, Message: fmt.Sprintf("%s: %s (HTTP %d)", what, msg, re.StatusCode), Err: err}
}

var aadsts = regexp.MustCompile(`AADSTS\d+:[^"\\]*`)

// isNotFound reports a 404 from ARM.
func isNotFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}

// hasCode reports an ARM error code.
func hasCode(err error, code string) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.ErrorCode == code
}
