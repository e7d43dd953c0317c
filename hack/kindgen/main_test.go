package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// TestModelCommand: `kindgen model -kind X` prints the kind's model as JSON.
func TestModelCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"model", "-kind", "RedisFirewallRule"}, &out); err != nil {
		t.Fatal(err)
	}
	var k model.Kind
	if err := json.Unmarshal(out.Bytes(), &k); err != nil {
		t.Fatal(err)
	}
	if k.ARMType != "Microsoft.Cache/redis/firewallRules" || k.Group.Aztenant != "cache.aztenant.io" {
		t.Errorf("model = %s %s", k.ARMType, k.Group.Aztenant)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"model"}, {"model", "-kind", "Namespace"}, {"model", "-kind", "Nope"}, {"frobnicate"}} {
		err := run(context.Background(), args, &bytes.Buffer{})
		var u *usageError
		if !errors.As(err, &u) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// The kinds table's ASO and risk columns come from ASO's kinds table and the example
// constraints, read from the repository.
func TestTableCells(t *testing.T) {
	cells, err := tableCells("../..", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cells.ASO["storage/StorageAccount"] || cells.ASO["storage/NoSuchKind"] {
		t.Errorf("ASO column: StorageAccount %v, NoSuchKind %v", cells.ASO["storage/StorageAccount"], cells.ASO["storage/NoSuchKind"])
	}
	if len(cells.ASO) < 290 {
		t.Errorf("ASO's kinds: %d, want ASO v2.21's 293", len(cells.ASO))
	}
	if r := cells.Risks["storage/StorageAccount"]; !slices.Contains(r, "publicnetworkaccess") || !slices.IsSorted(r) {
		t.Errorf("StorageAccount's risk templates: %v, want publicnetworkaccess among them, sorted", r)
	}
	if r := cells.Risks["authorization/RoleAssignment"]; !slices.Contains(r, "roleassignment") {
		t.Errorf("RoleAssignment's risk templates: %v, want roleassignment", r)
	}
}

// The committed kinds table (make generate writes it) has one row per kind, each linking
// a sample that exists.
func TestKindsTableRows(t *testing.T) {
	data, err := os.ReadFile("../../examples/generated/README.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)]+\.yaml)\) \|$`)
	seen := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 || strings.HasPrefix(line, "| group ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		rows++
		key := strings.TrimPrefix(cells[0], "| ") + "/" + cells[1]
		if seen[key] {
			t.Errorf("%s has two rows", key)
		}
		seen[key] = true
		m := link.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: no sample link", key)
			continue
		}
		if _, err := os.Stat(filepath.Join("../../examples/generated", m[1])); err != nil {
			t.Errorf("%s: its sample: %v", key, err)
		}
	}
	if rows < 300 {
		t.Errorf("%d rows, want one per generated kind", rows)
	}
}
