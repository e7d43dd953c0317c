package tenancy

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FindARMIDs returns every ARM resource ID that s names, however it is
// spelled, each as the path ARM would read (with its leading slash), for the
// guards to parse strictly and bound. A string that is exactly one valid ID
// is that ID, first. Then s is scanned, as a user's free-form value may carry
// an ID that a resource provider trims, completes or extracts (a name with a
// space, valid in some types, then also yields the ID up to the space: the
// same scope, bounded the same):
//   - with spaces around it, or embedded in a longer text or URL;
//   - without its leading slash ("subscriptions/…");
//   - in any casing of the keywords (ARM matches them case-insensitively);
//   - percent-encoded ("%2Fsubscriptions%2F…"), scanned once decoded as well.
//
// A value that starts (after spaces, with or without its slash) with the
// keyword "subscriptions/" or "providers/" and a segment is a path. Inside a
// longer text, a path starts at "subscriptions/" followed by a
// subscription-like segment (hex digits, dashes, braces: at least 32
// characters), or "providers/" followed by a provider namespace
// ("Microsoft.Network"), at the start of s or after a character that cannot
// be inside a name; it ends at whitespace, a quote, an angle or square
// bracket, a comma or semicolon, or a URL's
// query or fragment. Every "subscriptions/" inside a path starts a path of
// its own as well: an ID appended to another ("…/privateDnsZones/z/subscriptions/…")
// names the second resource to a provider that reads the last scope, so both
// are bounded.
//
// A path returned need not parse: a value that looks like an ID and does not
// parse strictly is refused by the guard, naming the field. Text that only
// mentions the words ("see /subscriptions/ in the portal") returns nothing.
func FindARMIDs(s string) []string {
	if !strings.ContainsAny(s, "/%") { // names, enums, numbers: most of a body
		return nil
	}
	var out []string
	if _, err := ParseARMID(s); err == nil {
		out = []string{s}
	}
	out = scanARMIDs(s, out)
	if strings.Contains(s, "%") {
		if dec, err := url.PathUnescape(s); err == nil && dec != s {
			if _, err := ParseARMID(dec); err == nil {
				out = appendNew(out, dec)
			}
			out = scanARMIDs(dec, out)
		}
	}
	return out
}

func scanARMIDs(s string, out []string) []string {
	lower := asciiLower(s) // byte for byte: indexes stay those of s
	// A value that starts as an ID does is one, whatever follows the keyword.
	lead := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	if lead < len(s) && s[lead] == '/' {
		lead++
	}
	for i := 0; i < len(s); {
		kw := keywordAt(lower, i, i == lead)
		if kw == "" || !boundaryBefore(s, i) {
			i++
			continue
		}
		start := i
		if i > 0 && s[i-1] == '/' {
			start = i - 1
		}
		end := i
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if endsPath(r) {
				break
			}
			end += size
		}
		p := strings.TrimRight(s[start:end], "/")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		out = appendNew(out, p)
		// Every inner "subscriptions/" starts a path of its own.
		for j := i + len(kw); j < end; j++ {
			if keywordAt(lower, j, false) == "subscriptions/" && s[j-1] == '/' {
				out = appendNew(out, "/"+strings.TrimRight(s[j:end], "/"))
			}
		}
		i = end
	}
	return out
}

// keywordAt returns the keyword that starts a path at i of lower, or "". In
// a longer text, the segment after it must look like what ARM would read
// there; at the start of the value (leading), anything does.
func keywordAt(lower string, i int, leading bool) string {
	switch rest := lower[i:]; {
	case strings.HasPrefix(rest, "subscriptions/"):
		if seg := segmentAt(rest[len("subscriptions/"):]); seg != "" && (leading || isSubscriptionLike(seg)) {
			return "subscriptions/"
		}
	case strings.HasPrefix(rest, "providers/"):
		if seg := segmentAt(rest[len("providers/"):]); seg != "" && (leading || isProviderNamespace(seg)) {
			return "providers/"
		}
	}
	return ""
}

func segmentAt(s string) string {
	if j := strings.IndexFunc(s, func(r rune) bool { return r == '/' || endsPath(r) }); j >= 0 {
		return s[:j]
	}
	return s
}

// isSubscriptionLike: what a provider might read as a subscription ID (a
// GUID, with or without dashes or braces); the parser then wants it canonical.
func isSubscriptionLike(seg string) bool {
	if len(seg) < 32 {
		return false
	}
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || c == '-' || c == '{' || c == '}') {
			return false
		}
	}
	return true
}

// boundaryBefore: the keyword at i is not the tail of a longer word.
func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-')
}

// endsPath: characters that end an ID inside a longer text.
func endsPath(r rune) bool {
	if unicode.IsSpace(r) || unicode.IsControl(r) {
		return true
	}
	return strings.ContainsRune("\"'`<>[]|^,;?#&=", r)
}

func appendNew(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// asciiLower lowers ASCII letters only, keeping every other byte (invalid
// UTF-8 included) where it is, unlike strings.ToLower.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
