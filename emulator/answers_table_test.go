package emulator_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/emulator"
)

var update = flag.Bool("update", false, "rewrite answers/README.md")

// tablePath is the per-kind table of answers from examples.
const tablePath = "answers/README.md"

// answersTable renders what ExampleAnswers says as answers/README.md.
func answersTable(all []emulator.ExampleAnswer) string {
	var b strings.Builder
	count := map[string]int{}
	var defaults, drops, reported, cited, unexplained int
	for _, x := range all {
		count[x.Answers]++
		defaults += len(x.Defaults)
		drops += len(x.Drops)
		reported += len(x.ReportedDrops)
		cited += len(x.CitedRewrites)
		unexplained += len(x.UnexplainedRewrites)
	}
	b.WriteString("<!-- Written by `go test ./emulator -run TestAnswersTable -update` from ExampleAnswers; the test fails when it is out of date. -->\n")
	b.WriteString("# Answers from Azure's examples, per kind\n\n")
	b.WriteString("With `Config.AnswerFromExamples` (`PUT /_emulator/examples`), the emulator answers a write of a\n")
	b.WriteString("generated kind from its request and what Azure's documented PUT examples at the kind's pinned\n")
	b.WriteString("api-version say: the `zz_generated_<module>.json` files here, which kindgen reads from the SDK\n")
	b.WriteString("modules' example tests (hack/kindgen/README.md). The rules are in ../README.md (\"Azure's answers\").\n")
	b.WriteString("Columns:\n\n")
	b.WriteString("- **answers**: `example` (built from the examples; the link is the smallest), `echo` (no example\n")
	b.WriteString("  documents an answer: the write is echoed), `behaviour` (a kind written by hand: its type behaviour answers);\n")
	b.WriteString("- **defaults**: documented defaults added where the request has nothing, of those the examples show\n")
	b.WriteString("  (the others are the examples' own IDs, tags, map entries or list elements);\n")
	b.WriteString("- **write-only dropped**: values never answered: every example that sent them left them out and the\n")
	b.WriteString("  SDK holds them for secrets, or a cited source says so (answers_cited.go);\n")
	b.WriteString("- **reported drops**: values an example leaves out that are not known to be write-only: answered as sent;\n")
	b.WriteString("- **cited rewrites**: rewrites an example shows that a cited transform applies;\n")
	b.WriteString("- **unexplained rewrites**: rewrites an example shows that no cited transform explains: never applied.\n\n")
	fmt.Fprintf(&b, "%d kinds answer from examples, %d echo, %d by their own behaviour. In all: %d defaults, %d write-only\n",
		count["example"], count["echo"], count["behaviour"], defaults, drops)
	fmt.Fprintf(&b, "values dropped, %d drops reported, %d cited rewrites applied, %d unexplained rewrites not applied.\n\n",
		reported, cited, unexplained)
	b.WriteString("| kind | ARM type | answers | defaults | write-only dropped | reported drops | cited rewrites | unexplained rewrites |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, x := range all {
		answers := x.Answers
		if answers == "example" {
			answers = "[example](" + x.Sources[0] + ")"
		}
		dropped := "—"
		if len(x.Drops) > 0 {
			var ps []string
			for _, d := range x.Drops {
				ps = append(ps, "`"+d[:strings.Index(d, " (")]+"`")
			}
			dropped = strings.Join(ps, ", ")
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d of %d | %s | %d | %d | %d |\n", x.Kind, x.ARMType, answers,
			len(x.Defaults), x.Documented, dropped, len(x.ReportedDrops), len(x.CitedRewrites), len(x.UnexplainedRewrites))
	}
	return b.String()
}

// answers/README.md is the table ExampleAnswers gives (-update rewrites it).
func TestAnswersTable(t *testing.T) {
	all, err := emulator.ExampleAnswers()
	if err != nil {
		t.Fatal(err)
	}
	want := answersTable(all)
	if *update {
		if err := os.WriteFile(tablePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(tablePath)
	if err != nil {
		t.Fatalf("%v (go test ./emulator -run TestAnswersTable -update writes it)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: go test ./emulator -run TestAnswersTable -update rewrites it", tablePath)
	}
}
