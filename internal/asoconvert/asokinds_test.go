package asoconvert_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/asoconvert"
)

// readTable reads a tab-separated table of testdata: its rows after the
// header, without comment lines.
func readTable(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	header := true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if header {
			header = false
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// Every kind ASO v2.21 serves (testdata/aso-kinds.tsv, from ASO's public API
// reference) has an aztenant kind of the same group and name, which convert
// maps; the kinds not there yet are listed, each with why, in
// testdata/aso-kinds-pending.tsv, and that list only shrinks.
func TestEveryASOKindHasAnEquivalent(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := api.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pending := map[string]string{}
	for _, r := range readTable(t, "aso-kinds-pending.tsv") {
		if len(r) != 3 || r[2] == "" {
			t.Fatalf("aso-kinds-pending.tsv: %q: want group, kind and why", r)
		}
		pending[r[0]+"/"+r[1]] = r[2]
	}
	rows := readTable(t, "aso-kinds.tsv")
	if len(rows) < 290 {
		t.Fatalf("aso-kinds.tsv: %d kinds, ASO v2.21 has 293", len(rows))
	}
	var have int
	for _, r := range rows {
		asoGroup, kind := r[0], r[1]
		key := asoGroup + "/" + kind
		group, ok := asoconvert.Group(asoGroup + ".azure.com")
		if !ok {
			t.Errorf("ASO group %s.azure.com: convert maps it to no group", asoGroup)
			continue
		}
		gvk := schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: kind}
		why, isPending := pending[key]
		delete(pending, key)
		if !scheme.Recognizes(gvk) {
			if !isPending {
				t.Errorf("ASO's %s.azure.com %s has no aztenant kind %s: add it, or list it in aso-kinds-pending.tsv with why", asoGroup, kind, gvk.GroupKind())
			}
			continue
		}
		have++
		if isPending {
			t.Errorf("%s is listed pending (%s) but aztenant has %s now: take it off aso-kinds-pending.tsv", key, why, gvk.GroupKind())
		}
		in := &unstructured.Unstructured{}
		in.SetAPIVersion(asoGroup + ".azure.com/v1api20240101")
		in.SetKind(kind)
		in.SetNamespace("team")
		in.SetName("x")
		res := asoconvert.Convert([]*unstructured.Unstructured{in}, scheme)
		if res.Lost() || len(res.Objects) != 1 || res.Objects[0].GroupVersionKind() != gvk {
			t.Errorf("convert of an ASO %s: %v, findings %v; want one %s", key, res.Objects, res.Findings, gvk)
		}
	}
	for key, why := range pending {
		t.Errorf("aso-kinds-pending.tsv lists %s (%s), which is not an ASO v2.21 kind", key, why)
	}
	t.Logf("%d of %d ASO v2.21 kinds have an aztenant equivalent", have, len(rows))
}
