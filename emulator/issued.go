package emulator

import "sync"

// maxIssued bounds what KeepIssued remembers.
const maxIssued = 10000

// issuedValues remembers, once a test turns it on, every access token Entra
// issued and every client assertion and client secret presented to it: the
// values a test checks never leak (into logs, spans, status). Off by
// default, in memory only, never logged or saved.
type issuedValues struct {
	mu     sync.Mutex
	on     bool
	values []string
}

func (v *issuedValues) add(s string) {
	if s == "" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.on && len(v.values) < maxIssued {
		v.values = append(v.values, s)
	}
}

// KeepIssued starts (or stops) remembering the access tokens Entra issues
// and the client assertions and secrets presented to it, for Issued.
func (e *Emulator) KeepIssued(on bool) {
	e.audit.issued.mu.Lock()
	defer e.audit.issued.mu.Unlock()
	e.audit.issued.on = on
}

// Issued returns the access tokens issued and the assertions and secrets
// presented since KeepIssued(true), oldest first (at most 10,000).
func (e *Emulator) Issued() []string {
	e.audit.issued.mu.Lock()
	defer e.audit.issued.mu.Unlock()
	return append([]string(nil), e.audit.issued.values...)
}
