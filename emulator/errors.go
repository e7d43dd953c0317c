package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrNotFound is returned by the in-process helpers when a resource or principal is absent.
var ErrNotFound = errors.New("emulator: not found")

// apiError is a failure the ARM side reports in ARM's shape:
// {"error":{"code":"...","message":"..."}} plus the x-ms-error-code header.
type apiError struct {
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration // set for 429 and 503 so clients back off as they would on Azure
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func armErr(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(code, format string, args ...any) *apiError {
	return armErr(http.StatusBadRequest, code, format, args...)
}
