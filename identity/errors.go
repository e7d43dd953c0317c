package identity

import (
	"errors"
	"fmt"
)

// Reasons name why an object has no usable identity. They are condition reasons
// on the object, so they are part of the API.
const (
	ReasonIdentityNotFound         = "IdentityNotFound"
	ReasonInvalidIdentityReference = "InvalidIdentityReference"
	ReasonServiceAccountNotFound   = "ServiceAccountNotFound"
	// ReasonServiceAccountNotReserved: the Identity names a ServiceAccount
	// other than the reserved provisioner account (see CheckReserved).
	ReasonServiceAccountNotReserved = "ServiceAccountNotReserved"
	ReasonMissingClientID           = "MissingClientID"
	ReasonMissingTenantID           = "MissingTenantID"
	ReasonFederationRejected        = "FederationRejected"
	// ReasonEntraUnavailable: Entra ID answered 5xx or 429; nothing is wrong
	// with the federation, the exchange is retried.
	ReasonEntraUnavailable   = "EntraUnavailable"
	ReasonTokenRequestFailed = "TokenRequestFailed"
)

// Error is a resolution or exchange failure with a condition reason and a
// message that tells the user what to fix. It never carries a token.
type Error struct {
	Reason  string
	Message string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Terminal reports whether waiting will not help: the user must change
// something (create the Identity, fix an annotation). Missing objects are not
// terminal: they may be created any moment, and a watch will notice.
func (e *Error) Terminal() bool {
	return e.Reason == ReasonInvalidIdentityReference || e.Reason == ReasonServiceAccountNotReserved
}

func errorf(reason string, err error, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...), Err: err}
}

// ReasonOf returns the reason of an *Error in err's chain, or "" if none.
func ReasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}
