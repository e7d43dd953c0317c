package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/history"
)

func TestReleases(t *testing.T) {
	changelog, err := os.ReadFile("testdata/armdemo@v2.0.0/CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := history.Releases(changelog, "v2.0.0"), []string{"v1.0.0", "v1.1.0", "v2.0.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Releases up to v2.0.0 = %v, want %v (the beta left out)", got, want)
	}
	if got, want := history.Releases(changelog, "v1.0.0"), []string{"v1.0.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Releases up to v1.0.0 = %v, want %v (nothing newer than the pin)", got, want)
	}
}

func TestPathAt(t *testing.T) {
	for _, c := range []struct{ path, v, want string }{
		{"example.com/armnetwork/v9", "v1.1.0", "example.com/armnetwork"},
		{"example.com/armnetwork/v9", "v0.4.0", "example.com/armnetwork"},
		{"example.com/armnetwork/v9", "v7.2.0", "example.com/armnetwork/v7"},
		{"example.com/armkeyvault", "v1.5.0", "example.com/armkeyvault"},
		{"example.com/armkeyvault", "v2.0.0", "example.com/armkeyvault/v2"},
		{"example.com/arm/vnext", "v2.0.0", "example.com/arm/vnext/v2"},
	} {
		if got := history.PathAt(c.path, c.v); got != c.want {
			t.Errorf("PathAt(%s, %s) = %s, want %s", c.path, c.v, got, c.want)
		}
	}
}

func TestTypeOf(t *testing.T) {
	for _, c := range []struct {
		path, want string
		ok         bool
	}{
		{"/subscriptions/{s}/resourceGroups/{g}/providers/Microsoft.Network/virtualNetworks/{v}/subnets/{n}", "microsoft.network/virtualnetworks/subnets", true},
		{"/subscriptions/{s}/resourceGroups/{g}/providers/Microsoft.Storage/storageAccounts/{a}/blobServices/default/containers/{c}", "microsoft.storage/storageaccounts/blobservices/containers", true},
		{"/{scope}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", "microsoft.authorization/roleassignments", true},
		// A collection, an action, a fixed-name singleton: not one named resource.
		{"/subscriptions/{s}/resourceGroups/{g}/providers/Microsoft.Network/virtualNetworks", "", false},
		{"/subscriptions/{s}/resourceGroups/{g}/providers/Microsoft.Storage/storageAccounts/{a}/listKeys", "", false},
		{"/subscriptions/{s}/resourceGroups/{g}/providers/Microsoft.Storage/storageAccounts/{a}/blobServices/default", "", false},
		{"/subscriptions/{s}/resourcegroups/{g}", "", false},
	} {
		got, ok := history.TypeOf(c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("TypeOf(%s) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestScan(t *testing.T) {
	got, err := history.Scan("testdata/armdemo@v2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"microsoft.demo/widgets":                {"2024-01-01"},
		"microsoft.demo/widgets/settings/parts": {"2023-12-01-preview"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Scan = %v, want %v", got, want)
	}
}

// Read follows the CHANGELOG back to v1.0.0 through the fetcher, keeps the first release
// that sent each version, asks nothing for the pinned release (its folder is known), and
// reports a release it cannot fetch.
func TestRead(t *testing.T) {
	var asked []string
	fetch := func(_ context.Context, path, version string) (string, error) {
		asked = append(asked, path+"@"+version)
		dir := filepath.Join("testdata", "armdemo@"+version)
		if _, err := os.Stat(dir); err != nil {
			return "", errors.New(path + "@" + version + ": not served by the module proxy")
		}
		return dir, nil
	}
	mods := []history.Module{{Path: "example.com/armdemo/v2", Version: "v2.0.0", Dir: "testdata/armdemo@v2.0.0"}}
	v, skipped, err := history.Read(t.Context(), mods, []string{"Microsoft.Demo/widgets"}, fetch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/armdemo@v1.0.0", "example.com/armdemo@v1.1.0"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("fetched %v, want %v", asked, want)
	}
	if len(skipped) != 1 || !slices.ContainsFunc(skipped, func(s string) bool { return s == "example.com/armdemo@v1.1.0: not served by the module proxy" }) {
		t.Errorf("skipped = %v, want the v1.1.0 release", skipped)
	}
	want := history.Versions{"Microsoft.Demo/widgets": {"2022-05-01": "armdemo@v1.0.0", "2024-01-01": "armdemo@v2.0.0"}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Read = %v, want %v (types asked for only, spelled as asked)", v, want)
	}
	if got := v.Of("microsoft.demo/WIDGETS"); !reflect.DeepEqual(got, []string{"2022-05-01", "2024-01-01"}) {
		t.Errorf("Of = %v", got)
	}
}

// The committed file has, for every type it lists, a well-formed version from a named
// release, and generate emits them (TestGeneratedTypesAcceptHistory in the emulator checks
// the emitted table against this file).
func TestCommittedFile(t *testing.T) {
	v, err := history.Load(filepath.Join("..", history.File))
	if err != nil {
		t.Fatal(err)
	}
	if len(v) < 250 {
		t.Fatalf("%s lists %d ARM types; the kinds config has about 300", history.File, len(v))
	}
	for typ, vs := range v {
		for ver, from := range vs {
			if len(ver) < 10 || ver[4] != '-' || ver[7] != '-' || from == "" {
				t.Errorf("%s: version %q from %q", typ, ver, from)
			}
		}
	}
}
