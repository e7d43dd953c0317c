package docpage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplaceKeepsProse(t *testing.T) {
	page := "# Title\n\nprose\n<!-- BEGIN GENERATED table by go test -update -->\nold\n<!-- END GENERATED -->\nmore prose\n"
	out, err := Replace([]byte(page), "table", "| a |\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nprose\n<!-- BEGIN GENERATED table by go test -update -->\n| a |\n<!-- END GENERATED -->\nmore prose\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, err := Replace([]byte(page), "other", "x"); err == nil {
		t.Error("a section the page lacks was replaced")
	}
	if _, err := Replace([]byte("<!-- BEGIN GENERATED table -->\nx\n"), "table", "x"); err == nil {
		t.Error("a section without its end marker was replaced")
	}
}

func TestCheckUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte("a\n<!-- BEGIN GENERATED s -->\nold\n<!-- END GENERATED -->\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeT{TB: t}
	Check(ft, path, "s", "new", false)
	if !ft.failed {
		t.Error("a stale section passed")
	}
	Check(t, path, "s", "new", true)
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "-->\nnew\n<!--") {
		t.Errorf("not updated: %q", b)
	}
	Check(t, path, "s", "new", false)
}

type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
}
func (f *fakeT) Helper() {}

// A page generated whole is rewritten with -update and compared without.
func TestCheckFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	CheckFile(t, path, "# Page\n", true)
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "# Page\n" {
		t.Fatalf("after -update: %q, %v", got, err)
	}
	CheckFile(t, path, "# Page\n", false)
	ft := &fakeT{TB: t}
	CheckFile(ft, path, "# Other\n", false)
	if !ft.failed || !strings.Contains(ft.msg, "line 1 of the page") {
		t.Errorf("a stale page passed or said %q", ft.msg)
	}
}
