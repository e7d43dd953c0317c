package entra

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"time"
)

// Error is a failure of the token endpoint in Entra's shape:
// {"error":"invalid_client","error_description":"AADSTS70021: ..."}.
type Error struct {
	Status      int
	Kind        string // OAuth error: invalid_client, invalid_request, unauthorized_client ...
	AADSTS      int
	Description string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: AADSTS%d: %s", e.Kind, e.AADSTS, e.Description)
}

// Errorf is a 400 with an OAuth error kind and an AADSTS code.
func Errorf(kind string, code int, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Kind: kind, AADSTS: code, Description: fmt.Sprintf(format, args...)}
}

// Body is the JSON Entra answers with: the description carries the AADSTS code and fresh
// trace and correlation IDs, as MSAL shows them.
func (e *Error) Body() map[string]any {
	now := time.Now().UTC()
	return map[string]any{
		"error": e.Kind,
		"error_description": fmt.Sprintf("AADSTS%d: %s Trace ID: %s Correlation ID: %s Timestamp: %s",
			e.AADSTS, e.Description, newGUID(), newGUID(), now.Format("2006-01-02 15:04:05Z")),
		"error_codes":    []int{e.AADSTS},
		"timestamp":      now.Format("2006-01-02 15:04:05Z"),
		"trace_id":       newGUID(),
		"correlation_id": newGUID(),
	}
}

// newGUID returns a random RFC 4122 version 4 UUID (trace IDs, token IDs).
func newGUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
