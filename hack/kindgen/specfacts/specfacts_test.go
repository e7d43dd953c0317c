package specfacts_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/specfacts"
)

// A write-only property is never returned (and not walked into), a read-only one is no
// fact, a list's elements are "[]", a discriminated object's base and variants are read,
// a sensitive string is a secret, and a type met again on its own path ends the walk.
func TestRead(t *testing.T) {
	f, err := specfacts.Read("testdata", "test", []specfacts.Want{{ARMType: "Microsoft.Demo/widgets", APIVersion: "2024-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	got := f.Of("microsoft.demo/WIDGETS")
	want := &specfacts.Type{
		APIVersion:  "2024-01-01",
		File:        "generated/demo/microsoft.demo/2024-01-01/types.json",
		NotReturned: []string{"properties.createMode", "properties.parts[].secret", "properties.settings.restore"},
		Secret:      []string{"properties.password", "properties.settings.token"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %+v\nwant %+v", got, want)
	}
}

// A type the files lack at the kind's version is an error, not facts left out.
func TestReadMissing(t *testing.T) {
	_, err := specfacts.Read("testdata", "test", []specfacts.Want{{ARMType: "Microsoft.Demo/widgets", APIVersion: "2025-01-01"}})
	if err == nil || !strings.Contains(err.Error(), "Microsoft.Demo/widgets@2025-01-01") {
		t.Errorf("Read of a version no file has: %v", err)
	}
}

// The committed file names its source and each type's file at a version.
func TestCommittedFile(t *testing.T) {
	f, err := specfacts.Load(filepath.Join("..", specfacts.File))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Source, "bicep-types-az") || len(f.Types) < 300 {
		t.Fatalf("%s: source %q, %d types", specfacts.File, f.Source, len(f.Types))
	}
	notReturned := 0
	for typ, x := range f.Types {
		if !strings.Contains(x.File, "/"+x.APIVersion+"/types.json") {
			t.Errorf("%s: facts of %s read from %s", typ, x.APIVersion, x.File)
		}
		notReturned += len(x.NotReturned)
	}
	if notReturned == 0 {
		t.Errorf("no path never returned in %d types", len(f.Types))
	}
}
