package bench

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aztenant/aztenant/internal/docpage"
)

var update = flag.Bool("update", false, "rewrite docs/benchmarks.md from bench-results.json")

// sampleReport is a small report: two scenarios, an aim met and one not, a
// figure whose name needs escaping, and the stack's conditions.
func sampleReport() *Report {
	r := &Report{Started: time.Date(2026, 12, 5, 11, 17, 14, 0, time.FixedZone("CET", 3600)), Seconds: 754.6, Config: FullConfig(),
		Machine: Machine{CPUs: 2, CPUModel: "Test CPU", LoadAvgBefore: "0.40 0.30 0.20", LoadAvgAfter: "1.80 1.10 0.60"},
		Conditions: &Conditions{Answers: AnswersExamples, AnswersSeed: AnswersSeed, AnswerOps: []string{"case", "dropValue"},
			AnsweredTypes: []string{"Microsoft.Resources/resourceGroups"}, CRDs: 311,
			OperatorArgs: []string{"--sync-period=30s", "--workers=8"}, Revision: "abc123"}}
	r.add(ScenarioConverge, "resources (1000 ResourceGroups + 200 StorageAccounts, 20 namespaces)", 1200, "", nil)
	r.add(ScenarioConverge, "resources Ready per second", 43.21, "/s", &Aim{">=", 50})
	r.add(ScenarioConverge, "ARM calls per resource", 2.1666666, "", &Aim{"<=", 2})
	r.add(ScenarioIdle, "operator RSS at idle (VmRSS)", 150.5, "MiB", &Aim{"<", 200})
	r.add(ScenarioIdle, "a | b <c>", 12345.5, "s", nil)
	return r
}

func TestWriteMarkdown(t *testing.T) {
	page, err := RenderMarkdown(sampleReport(), "bench-results.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", page)
	for _, want := range []string{
		PageMarker + " from bench-results.json",
		"\n# Benchmarks\n",
		// The conditions.
		"| date | 2026-12-05 10:17 UTC |",
		"| length | 12m35s |",
		"| machine | 2 CPUs (Test CPU) |",
		"| load average (1, 5, 15 min) | 0.40 0.30 0.20 before, 1.80 1.10 0.60 after",
		"| Azure | the local Azure emulator (`bin/azure-emulator`), never Azure |",
		"| emulated latency | none (0:",
		"| Azure's answers to writes | from Azure's documented examples, then perturbed with seed 27 (transforms: case, dropValue; besides the generated kinds', the writes of Microsoft.Resources/resourceGroups) |",
		"| CRDs installed | 311; the operator serves every kind installed",
		"| operator flags the bench adds | `--sync-period=30s --workers=8` |",
		"| aztenant-lab built from | `abc123` |",
		// The aims, and the tables in the order of the rows.
		"2 of 3 aims not met:\n\n- converge: resources Ready per second: 43.21/s (aim ≥ 50/s)\n- converge: ARM calls per resource: 2.167 (aim ≤ 2)\n",
		"\n## converge\n\nResourceGroups and StorageAccounts",
		"| figure | value | aim | met |\n| --- | --- | --- | --- |\n| resources (1000 ResourceGroups + 200 StorageAccounts, 20 namespaces) | 1,200 |  |  |\n",
		"| resources Ready per second | 43.21/s | ≥ 50/s | **✘ not met** |\n",
		"| ARM calls per resource | 2.167 | ≤ 2 | **✘ not met** |\n",
		"\n## idle-10k\n",
		"| operator RSS at idle (VmRSS) | 150.5 MiB | &lt; 200 MiB | ✔ met |\n",
		`| a \| b &lt;c&gt; | 12,345.5 s |  |  |`,
		"`aztenant-lab bench --scenario shards`",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, "## converge") > strings.Index(page, "## idle-10k") {
		t.Error("scenarios out of the rows' order")
	}
	if strings.Contains(page, "\n\n\n") || strings.Contains(page, " \n") || !strings.HasSuffix(page, ".\n") {
		t.Error("blank lines in a row, trailing spaces or no final newline")
	}
	if strings.Contains(page, "## Failures") || strings.Contains(page, "**quick**") {
		t.Error("a full run without failures rendered as failed or quick")
	}

	// A quick run that failed, from a file written before conditions were
	// recorded, every aim met.
	r := sampleReport()
	r.Quick, r.Conditions, r.Rows = true, nil, r.Rows[3:4]
	r.Failures = []string{"fairness: timed out"}
	page, err = RenderMarkdown(r, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a **quick** run", "| Azure | not recorded in the results file", "The one aim is met.", "## Failures", "- fairness: timed out"} {
		if !strings.Contains(page, want) {
			t.Errorf("the quick, failed page lacks %q", want)
		}
	}
}

func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := sampleReport().WriteJSON(good); err != nil {
		t.Fatal(err)
	}
	r, err := ReadReport(good)
	if err != nil || len(r.Rows) != 5 || r.Conditions == nil || r.Conditions.CRDs != 311 {
		t.Fatalf("read back %+v, %v", r, err)
	}
	for name, body := range map[string]string{"bad.json": "{", "empty.json": "{}", "array.json": "[1]", "norow.json": `{"started":"2026-12-05T00:00:00Z","rows":[{"value":1}]}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadReport(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
	if _, err := ReadReport(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// docs/benchmarks.md is what the renderer gives from the committed
// bench-results.json (make generate passes -update; make verify-generate
// fails on a difference). Until a run's results are committed the page is
// the hand-written one, and the test holds it to saying so.
func TestBenchmarksPage(t *testing.T) {
	const results, page = "../../../bench-results.json", "../../../docs/benchmarks.md"
	if _, err := os.Stat(results); errors.Is(err, fs.ErrNotExist) {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(md, []byte(PageMarker)) {
			t.Fatalf("%s is generated from bench-results.json, which is missing: commit the results of the run it shows", page)
		}
		// Without results, the page must tell its reader that its figures are not
		// the renderer's: a page that claims nothing could pass for a run's.
		if !bytes.Contains(md, []byte("This page is still hand-written")) {
			t.Fatalf("no bench-results.json at the repository's root, and %s does not say it is hand-written: say so, or commit a run's results with the page (make bench writes both)", page)
		}
		return
	}
	rep, err := ReadReport(results)
	if err != nil {
		t.Fatal(err)
	}
	body, err := RenderMarkdown(rep, "bench-results.json")
	if err != nil {
		t.Fatal(err)
	}
	docpage.CheckFile(t, page, body, *update)
}
