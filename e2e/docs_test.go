package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is the bar of issue 28 item 5: README.md is a front door
// (what aztenant is, the trust model, make demo and make test, install in
// short, links); the rest lives in ARCHITECTURE.md and docs/.
const readmeMaxLines = 250

// TestReadmeIsAFrontDoor fails when README.md grows past readmeMaxLines:
// a section that needs more room belongs on a page of docs/, linked from it.
func TestReadmeIsAFrontDoor(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move a section to docs/ and link it", n, readmeMaxLines)
	}
}

// docPages are the pages whose relative links TestDocLinks checks.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"../README.md", "../ARCHITECTURE.md"}
	for _, pattern := range []string{"../docs/*.md", "../docs/*/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	return pages
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6} (.+)$`)
)

// TestDocLinks: every relative link of README.md, ARCHITECTURE.md and the
// pages of docs/ names a file or folder that exists, and a #fragment into a
// Markdown page names one of its headings, as GitHub makes their anchors.
// Links out (https:, mailto:) are not followed.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		for _, l := range links(t, page) {
			target, fragment, _ := strings.Cut(l.to, "#")
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", page, l.line, l.to, path)
					continue
				}
			}
			if fragment == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !anchors(t, path)[fragment] {
				t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", page, l.line, l.to, path, fragment)
			}
		}
	}
}

type docLink struct {
	to   string
	line int
}

// links returns the relative links of a Markdown page, outside fenced code
// blocks and inline code.
func links(t *testing.T, page string) []docLink {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []docLink
	fenced := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			to := m[1]
			if strings.Contains(to, "://") || strings.HasPrefix(to, "mailto:") {
				continue
			}
			out = append(out, docLink{to: to, line: i + 1})
		}
	}
	return out
}

// anchors are the anchors GitHub gives a Markdown page's headings: the
// heading's text in lower case, spaces as hyphens, everything but letters,
// digits, hyphens and underscores dropped; a repeated anchor gets -1, -2 ...
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
