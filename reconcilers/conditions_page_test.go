package reconcilers

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/internal/docpage"
)

var updatePages = flag.Bool("update", false, "rewrite docs/conditions.md's Ready reason table from readyReasons and docs/conditions-reasons.yaml")

// reasonText is an entry of docs/conditions-reasons.yaml: the meaning and
// fix columns of one row of the table, for one or more reasons.
type reasonText struct {
	Reasons []string `json:"reasons"`
	Meaning string   `json:"meaning"`
	Fix     string   `json:"fix"`
}

// kstatusColumn is what the conditions page's reason table says of a class.
func kstatusColumn(rc ReasonClass) string {
	return rc.Class.KStatus() + ", Ready " + string(rc.Ready)
}

// conditionsTable renders the Ready reason table: a row per entry of
// texts, in the order of readyReasons, each with the kstatus verdict and
// Ready status of its reasons' class. Every reason has exactly one entry,
// and the reasons of an entry share their class.
func conditionsTable(reasons []ReasonClass, texts []reasonText) (string, error) {
	entry := map[string]int{}
	for i, e := range texts {
		if len(e.Reasons) == 0 {
			return "", fmt.Errorf("entry %d names no reason", i+1)
		}
		for _, r := range e.Reasons {
			if _, dup := entry[r]; dup {
				return "", fmt.Errorf("%s has two entries", r)
			}
			entry[r] = i
		}
	}
	listed := map[string]ReasonClass{}
	var missing []string
	for _, rc := range reasons {
		listed[rc.Reason] = rc
		if _, ok := entry[rc.Reason]; !ok {
			missing = append(missing, rc.Reason)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("no entry for %s: add its meaning and fix", strings.Join(missing, ", "))
	}
	for r := range entry {
		if _, ok := listed[r]; !ok {
			return "", fmt.Errorf("an entry names %s, which readyReasons does not list", r)
		}
	}
	var b strings.Builder
	b.WriteString("| Ready reason | kstatus | meaning | fix |\n| --- | --- | --- | --- |\n")
	done := map[int]bool{}
	for _, rc := range reasons {
		i := entry[rc.Reason]
		if done[i] {
			continue
		}
		done[i] = true
		e := texts[i]
		col := kstatusColumn(listed[e.Reasons[0]])
		names := make([]string, len(e.Reasons))
		for j, r := range e.Reasons {
			if c := kstatusColumn(listed[r]); c != col {
				return "", fmt.Errorf("%s (%s) shares a row with %s (%s)", r, c, e.Reasons[0], col)
			}
			names[j] = "`" + r + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), col, docpage.Cell(e.Meaning), docpage.Cell(e.Fix))
	}
	return b.String(), nil
}

// The conditions page's (docs/conditions.md) "Ready reason" table is
// generated from readyReasons (which reasons, their order, the kstatus
// verdict and Ready status of each class) and the texts of
// docs/conditions-reasons.yaml; make generate runs this with -update, and
// make verify-generate (and this test) fails when the page is stale.
func TestConditionsPageReasonTable(t *testing.T) {
	raw, err := os.ReadFile("../docs/conditions-reasons.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var texts []reasonText
	if err := yaml.UnmarshalStrict(raw, &texts); err != nil {
		t.Fatalf("docs/conditions-reasons.yaml: %v", err)
	}
	table, err := conditionsTable(ReadyReasons(), texts)
	if err != nil {
		t.Fatalf("docs/conditions-reasons.yaml: %v", err)
	}
	docpage.Check(t, "../docs/conditions.md", "ready-reasons", table, *updatePages)
}

// The table's checks: a reason without an entry, an entry for no listed
// reason, and a row shared across classes are refused.
func TestConditionsTableRefuses(t *testing.T) {
	reasons := []ReasonClass{succeeded("A"), terminal("B"), terminal("C")}
	for name, texts := range map[string][]reasonText{
		"missing":     {{Reasons: []string{"A"}}, {Reasons: []string{"B"}}},
		"unlisted":    {{Reasons: []string{"A"}}, {Reasons: []string{"B", "C"}}, {Reasons: []string{"D"}}},
		"mixed class": {{Reasons: []string{"A", "B"}}, {Reasons: []string{"C"}}},
		"twice":       {{Reasons: []string{"A"}}, {Reasons: []string{"B", "C"}}, {Reasons: []string{"C"}}},
	} {
		if _, err := conditionsTable(reasons, texts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	got, err := conditionsTable(reasons, []reasonText{{Reasons: []string{"B", "C"}, Meaning: "a | b"}, {Reasons: []string{"A"}, Fix: "f"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "| Ready reason | kstatus | meaning | fix |\n| --- | --- | --- | --- |\n" +
		"| `A` | Current, Ready True |  | f |\n" +
		"| `B`, `C` | Failed, Ready False | a \\| b |  |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
