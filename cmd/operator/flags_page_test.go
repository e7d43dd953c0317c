package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/aztenant/aztenant/internal/docpage"
)

var update = flag.Bool("update", false, "rewrite docs/operator-flags.md's generated table from the flag set")

// flagsTable renders every flag of the operator's flag set, in the order
// they are defined: name, type, default and usage, as --help has them.
func flagsTable(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("| flag | type | default | usage |\n| --- | --- | --- | --- |\n")
	fs.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		typ, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() == "bool" {
			typ = "bool"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "[]" {
			def = "`" + f.DefValue + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.Name, typ, docpage.Cell(def), docpage.Cell(usage))
	})
	return b.String()
}

// TestOperatorFlagsPage: docs/operator-flags.md's table is the flag set's
// (make generate runs this with -update; make verify-generate fails when
// the page is stale).
func TestOperatorFlagsPage(t *testing.T) {
	var o options
	fs := newFlagSet(&o, &zap.Options{}, pflag.ContinueOnError)
	table := flagsTable(fs)
	for _, name := range []string{"crd-pattern", "zap-log-level", "azure-cloud", "shards"} {
		if !strings.Contains(table, "| `--"+name+"` |") {
			t.Errorf("the table lacks --%s", name)
		}
	}
	docpage.Check(t, "../../docs/operator-flags.md", "flags", table, *update)
}
