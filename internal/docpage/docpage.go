// Package docpage keeps the generated sections of the pages in docs/: a
// section sits between
//
//	<!-- BEGIN GENERATED <name> ... -->
//	<!-- END GENERATED -->
//
// lines, and everything outside the markers is hand-written. A page's test
// renders the section from the code (the operator's flag set, the Ready
// reasons) and either rewrites it (-update, which make generate passes) or
// fails when the committed page differs, so a page cannot drift from the
// code it documents.
package docpage

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

const (
	beginPrefix = "<!-- BEGIN GENERATED "
	endLine     = "<!-- END GENERATED -->"
)

// Section returns the body of the named section of page (the lines between
// its markers) and the byte offsets the body spans.
func Section(page []byte, name string) (body string, start, end int, err error) {
	begin := -1
	off := 0
	for line := range bytes.Lines(page) {
		next := off + len(line)
		text := strings.TrimRight(string(line), "\r\n")
		switch {
		case begin < 0 && strings.HasPrefix(text, beginPrefix):
			rest := strings.TrimPrefix(text, beginPrefix)
			if f := strings.Fields(rest); len(f) > 0 && f[0] == name {
				begin = next
			}
		case begin >= 0 && text == endLine:
			return string(page[begin:off]), begin, off, nil
		}
		off = next
	}
	if begin < 0 {
		return "", 0, 0, fmt.Errorf("no %s%s ... --> line", beginPrefix, name)
	}
	return "", 0, 0, fmt.Errorf("section %s has no %s line", name, endLine)
}

// Replace returns page with the named section's body replaced by body.
func Replace(page []byte, name, body string) ([]byte, error) {
	_, start, end, err := Section(page, name)
	if err != nil {
		return nil, err
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	out := append([]byte(nil), page[:start]...)
	out = append(out, body...)
	return append(out, page[end:]...), nil
}

// Check compares the named section of the page at path with body; with
// update it writes body into the page instead. The hint says how to
// regenerate (make generate).
func Check(t testing.TB, path, name, body string, update bool) {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, err := Section(page, name)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if got == body {
		return
	}
	if update {
		out, err := Replace(page, name, body)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the generated section %s is stale: run make generate (or this test with -update) and commit\n%s", path, name, firstDiff(got, body))
}

// CheckFile is Check for a page that is generated whole: it compares the page
// at path with body, or with update writes body there.
func CheckFile(t testing.TB, path, body string, update bool) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil && !(update && os.IsNotExist(err)) {
		t.Fatal(err)
	}
	if string(got) == body {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run make generate (or this test with -update) and commit\n%s", path, strings.Replace(firstDiff(string(got), body), "of the section", "of the page", 1))
}

// firstDiff names the first line where the committed section and the
// generated one differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d of the section:\n  committed: %q\n  generated: %q", i+1, gl, wl)
		}
	}
	return ""
}

// Cell escapes s for a cell of a Markdown table: a pipe, and an angle
// bracket a renderer would take for HTML.
func Cell(s string) string {
	s = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
