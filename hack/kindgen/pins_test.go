package main

import (
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/aztenant/aztenant/hack/kindgen/config"
)

// TestPins: every module the config names is required by this go.mod (which pins its
// version) and imported by pins.go (which keeps `go mod tidy` from dropping it), and this
// module's Go version is the operator's.
func TestPins(t *testing.T) {
	f, err := config.Load(defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	mod := parseMod(t, "go.mod")
	root := parseMod(t, "../../go.mod")
	if mod.Go.Version != root.Go.Version {
		t.Errorf("go %s here, go %s in the root go.mod", mod.Go.Version, root.Go.Version)
	}
	required := map[string]bool{}
	for _, r := range mod.Require {
		if !r.Indirect {
			required[r.Mod.Path] = true
		}
	}
	pins, err := parser.ParseFile(token.NewFileSet(), "pins.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, imp := range pins.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imported = append(imported, p)
	}
	for alias, path := range f.Modules {
		if !required[path] {
			t.Errorf("module %s (%s) is not a direct requirement of go.mod", alias, path)
		}
		if !slices.Contains(imported, path) {
			t.Errorf("module %s (%s) is not imported by pins.go", alias, path)
		}
	}
	if len(imported) != len(f.Modules) {
		t.Errorf("pins.go imports %d modules, the config names %d", len(imported), len(f.Modules))
	}
}

func parseMod(t *testing.T, path string) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
