package reconcilers

import "time"

// Settings are the operator's settings for the reconciles of every kind: set once from
// the flags (cmd/operator), carried by operator.Config, read by each Reconciler. Zero
// values take the defaults given (WithDefaults).
type Settings struct {
	// SyncPeriod is how often an unchanged resource is compared with Azure to correct
	// drift; a tenth of it is added at random so resyncs spread out (1h).
	SyncPeriod time.Duration
	// SecretRefreshPeriod is how long secret outputs read from Azure (keys, with a
	// POST) are trusted before they are read again (package exports; 24h).
	SecretRefreshPeriod time.Duration
	// GetDriftChecks reads every object by GET at each drift check instead of comparing
	// a collection's objects with one listing (lists.go; --drift-checks=get).
	GetDriftChecks bool
	// DefaultPolicy is the reconcile policy of an object and namespace that name none
	// (manage).
	DefaultPolicy Policy
	// PollInterval is how soon an unfinished long-running operation is polled again
	// when ARM gives no Retry-After (2s).
	PollInterval time.Duration
	// Workers is how many objects of one kind are reconciled at once (4).
	Workers int
}

// WithDefaults is s with each zero value replaced by its default. The
// operator applies it once, where the settings come in (operator.Setup).
func (s Settings) WithDefaults() Settings {
	if s.SyncPeriod == 0 {
		s.SyncPeriod = time.Hour
	}
	if s.SecretRefreshPeriod == 0 {
		s.SecretRefreshPeriod = 24 * time.Hour
	}
	if s.DefaultPolicy == "" {
		s.DefaultPolicy = PolicyManage
	}
	if s.PollInterval == 0 {
		s.PollInterval = 2 * time.Second
	}
	if s.Workers == 0 {
		s.Workers = 4
	}
	return s
}
