package reconcilers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file is Azure's answer to a write (issue 27; the design is
// docs/design/azure-answers.md, §1): where Azure answers a write its own way
// (a value it forces, rewrites or never returns), status.azureKeeps records
// that answer, per path, as keyed digests, so later syncs take that answer as
// in sync instead of writing the same body again at every sync. These are the
// pure parts: the digests, the entries and the decision at one path; the
// projection of Azure's answer onto what the spec says, the paths and the
// bound on entries are reconcilers/comparison's (Project, ValueAt, Collapse).
// The steps that use them (record, consult) are in keeps.go.

const (
	// maxKept is how many entries status.azureKeeps holds; more are merged
	// into their common parents (comparison.Collapse).
	maxKept = 64
	// keptValueLimit is how many characters of Azure's value an entry shows.
	keptValueLimit = 128
	// answerScheme prefixes every digest: a new scheme (or a new table of
	// normalisations) drops the records made with another.
	answerScheme = "h1:"
)

// answers is what recording Azure's answer and deciding with it need: the
// digest key (writeOnlyKey: the UIDs of the Secrets the kind reads, else the
// object's), the desired body and Azure's, the kind's open sets, and what is
// secret (Facts.WriteOnly, and the values read from Secrets or other objects).
type answers struct {
	key             []byte
	desired, actual map[string]any
	open            map[string]bool
	writeOnly       []string
	secrets         []string
	// decided remembers keeps' answer per entry (nil: not remembered), for
	// the many differences one coarse entry covers.
	decided map[string]bool
}

// digest is the keyed digest of v at path: h1: and 22 characters of
// base64url (132 bits) of HMAC-SHA256 over the path and v's canonical JSON.
// Status is readable by whoever may view the namespace, Secrets are not: the
// key keeps a value read from a Secret from being guessed offline.
func (a answers) digest(path string, v any) string {
	h := hmac.New(sha256.New, a.key)
	h.Write([]byte("aztenant.io/azure-answer/v1\x00"))
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(comparison.CanonicalJSON(v))
	return answerScheme + base64.RawURLEncoding.EncodeToString(h.Sum(nil))[:22]
}

// sent is the digest of the desired value at path.
func (a answers) sent(path string) string {
	v, _ := comparison.ValueAt(a.desired, path)
	return a.digest(path, v)
}

// answered is the digest of Azure's value at path as projected onto the
// desired value there, "" when Azure has nothing there.
func (a answers) answered(path string) string {
	got, ok := a.projected(path)
	if !ok {
		return ""
	}
	return a.digest(path, got)
}

// projected is Azure's value at path, projected onto the desired value there
// (comparison.Project); false when Azure has nothing there.
func (a answers) projected(path string) (any, bool) {
	got, ok := comparison.ValueAt(a.actual, path)
	if !ok {
		return nil, false
	}
	want, _ := comparison.ValueAt(a.desired, path)
	return comparison.Project(path, want, got, a.open), true
}

// entry is the record of path: the digests of what was sent and of what
// Azure answered, and Azure's value unless it may be secret.
func (a answers) entry(path string) azurev1alpha1.KeptPath {
	e := azurev1alpha1.KeptPath{Path: path, Sent: a.sent(path), Answered: a.answered(path)}
	if got, ok := a.projected(path); ok && !a.secret(path) {
		e.Value = keptValue(got)
	}
	return e
}

// record is the entries for the differences left after a write (one per
// path, merged into common parents past maxKept), sorted by path.
func (a answers) record(diffs []comparison.Difference) []azurev1alpha1.KeptPath {
	paths := make([]string, 0, len(diffs))
	for _, d := range diffs {
		paths = append(paths, d.Path)
	}
	paths = comparison.Collapse(paths, maxKept)
	out := make([]azurev1alpha1.KeptPath, 0, len(paths))
	for _, p := range paths {
		out = append(out, a.entry(p))
	}
	return out
}

// keeps reports whether the record says Azure keeps path its own way: the
// entry covering path (longest prefix) was made for the desired value there
// now, and Azure still answers what it answered then. Asked only of a path
// the comparison reports as different, so an entry never turns a match into
// a write.
func (a answers) keeps(entries []azurev1alpha1.KeptPath, path string) bool {
	e := covering(entries, path)
	if e == nil {
		return false
	}
	if k, ok := a.decided[e.Path]; ok {
		return k
	}
	k := a.sent(e.Path) == e.Sent && a.answered(e.Path) == e.Answered
	if a.decided != nil {
		a.decided[e.Path] = k
	}
	return k
}

// secret reports whether Azure's value at path may show a secret: the path
// is, holds or lies under a write-only path, or the desired or answered value
// there holds a value read through Hooks.Resolve (a Secret's, or another
// object's: not told apart, so both are hidden).
func (a answers) secret(path string) bool {
	for _, w := range a.writeOnly {
		if comparison.Covers(w, path) || comparison.Covers(path, w) {
			return true
		}
	}
	if len(a.secrets) == 0 {
		return false
	}
	want, _ := comparison.ValueAt(a.desired, path)
	got, _ := comparison.ValueAt(a.actual, path)
	return holdsAny(want, a.secrets) || holdsAny(got, a.secrets)
}

// holdsAny reports whether a string in v is or contains one of values.
func holdsAny(v any, values []string) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if holdsAny(e, values) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsAny(e, values) {
				return true
			}
		}
	case string:
		for _, s := range values {
			if s != "" && (t == s || len(s) >= 4 && strings.Contains(t, s)) {
				return true
			}
		}
	}
	return false
}

// keptValue is v as JSON, cut to keptValueLimit characters.
func keptValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	s := string(data)
	if utf8.RuneCountInString(s) <= keptValueLimit {
		return s
	}
	r := []rune(s)
	return string(r[:keptValueLimit]) + "…"
}

// covering is the entry covering path with the longest path, nil if none.
func covering(entries []azurev1alpha1.KeptPath, path string) *azurev1alpha1.KeptPath {
	var best *azurev1alpha1.KeptPath
	for i := range entries {
		e := &entries[i]
		if comparison.Covers(e.Path, path) && (best == nil || comparison.Depth(e.Path) > comparison.Depth(best.Path)) {
			best = e
		}
	}
	return best
}

// keptNames are the paths of entries, for telling whether the set changed.
func keptNames(k *azurev1alpha1.AzureKeeps) []string {
	if k == nil {
		return nil
	}
	out := make([]string, 0, len(k.Paths))
	for _, e := range k.Paths {
		out = append(out, e.Path)
	}
	return out
}
