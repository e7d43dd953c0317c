package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/emit"
	"github.com/aztenant/aztenant/hack/kindgen/examples"
	"github.com/aztenant/aztenant/hack/kindgen/history"
	"github.com/aztenant/aztenant/hack/kindgen/model"
	"github.com/aztenant/aztenant/hack/kindgen/sdk"
	"github.com/aztenant/aztenant/hack/kindgen/specfacts"
	"sigs.k8s.io/yaml"
)

// defaultConfig is relative to this module's directory, where `go -C hack/kindgen run .`
// runs.
const defaultConfig = "../../api/kinds.yaml"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kindgen:", err)
		var usage *usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

const usage = `usage: kindgen model -kind NAME [-group GROUP] [-config FILE]
       kindgen check [-config FILE]
       kindgen generate [-config FILE] [-out DIR]
       kindgen table [-config FILE] [-out DIR]    (only examples/generated/README.md: make generate's last step)
       kindgen answers [-config FILE] [-out DIR]
       kindgen history [-config FILE]
       kindgen specfacts -from DIR -source TEXT [-config FILE]`

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return &usageError{usage}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	cfgPath := fs.String("config", defaultConfig, "the kinds config")
	kind := fs.String("kind", "", "kind to print (model)")
	group := fs.String("group", "", "ASO short group, when kinds share a name (model)")
	outDir := fs.String("out", "../..", "the repository root generate writes into")
	from := fs.String("from", "", "a bicep-types-az checkout, or the part of its generated folder with the pinned versions (specfacts)")
	source := fs.String("source", "", "the bicep-types-az commit read and the azure-rest-api-specs commit it names (specfacts)")
	if err := fs.Parse(args[1:]); err != nil {
		return &usageError{err.Error()}
	}
	file, err := config.Load(*cfgPath)
	if err != nil {
		return err
	}
	switch args[0] {
	case "model":
		kinds := file.Find(*group, *kind)
		switch {
		case *kind == "":
			return &usageError{"model needs -kind"}
		case len(kinds) == 0:
			return &usageError{fmt.Sprintf("no kind %s in %s", *kind, *cfgPath)}
		case len(kinds) > 1:
			return &usageError{fmt.Sprintf("kind %s is in several groups; add -group", *kind)}
		}
		models, err := sdk.ReadAll(ctx, ".", file, kinds)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(models[0])
	case "generate":
		return generate(ctx, file, *outDir, false, out)
	case "table":
		return generate(ctx, file, *outDir, true, out)
	case "answers":
		return answers(ctx, file, *outDir, out)
	case "history":
		return readHistory(ctx, file, out)
	case "specfacts":
		if *from == "" || *source == "" {
			return &usageError{"specfacts needs -from and -source"}
		}
		return readSpecFacts(ctx, file, *from, *source, out)
	case "check":
		start := time.Now()
		models, err := sdk.ReadAll(ctx, ".", file, file.Kinds)
		if err != nil {
			return err
		}
		return summarise(out, file, models, time.Since(start))
	}
	return &usageError{usage}
}

// summarise prints one line per kind and the totals; it fails if any kind has
// unresolved types.
func summarise(out io.Writer, file *config.File, models []*model.Kind, took time.Duration) error {
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tKIND\tARM TYPE\tSCOPE\tAPI\tLRO c/u/d\tACTIONS\tTYPES\tREFS\tSECRETS\tCUTS\tCYCLES\tUNRESOLVED")
	var bad []string
	for _, k := range models {
		refs, secrets := 0, 0
		for _, t := range k.Types {
			for _, f := range t.Fields {
				if f.Reference != nil {
					refs++
				}
				if f.Secret != nil {
					secrets++
				}
			}
		}
		var actions []string
		for _, a := range k.Actions {
			actions = append(actions, a.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", k.Group.Name, k.Kind, k.ARMType, k.Scope,
			k.APIVersion, lro(k), strings.Join(actions, ","), len(k.Types), refs, secrets, len(k.Cuts), len(k.Cycles), len(k.Unresolved))
		if len(k.Unresolved) > 0 {
			bad = append(bad, k.Group.Name+"/"+k.Kind+": "+strings.Join(k.Unresolved, "; "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(out, "%d kinds from %d modules in %s (heap in use %d MiB, total allocated %d MiB)\n",
		len(models), len(file.ModulePaths(file.Kinds)), took.Round(time.Millisecond), ms.HeapInuse>>20, ms.TotalAlloc>>20)
	if len(bad) > 0 {
		return fmt.Errorf("unresolved types:\n  %s", strings.Join(bad, "\n  "))
	}
	return nil
}

func lro(k *model.Kind) string {
	flag := func(o *model.Operation) string {
		switch {
		case o == nil:
			return "-"
		case o.LongRunning:
			return "L"
		}
		return "s"
	}
	return flag(k.Create) + "/" + flag(k.Update) + "/" + flag(k.Delete)
}

// generate writes the files of the wave's kinds (emit.Wave: every kind of the config not
// written by hand, parents first) under root.
func generate(ctx context.Context, file *config.File, root string, onlyTable bool, out io.Writer) error {
	start := time.Now()
	// Every kind is read: the others say which of the wave's fields are child kinds.
	all, pkgs, err := sdk.ReadAllPackages(ctx, ".", file, file.Kinds)
	if err != nil {
		return err
	}
	if err := readFacts(all); err != nil {
		return err
	}
	ans, err := examples.Build(file, all, pkgs)
	if err != nil {
		return err
	}
	models, err := emit.Wave(all)
	if err != nil {
		return err
	}
	for _, m := range models {
		if k := ans.Kinds[m.Group.Name+"/"+m.Kind]; k != nil {
			m.ChildName = k.ChildName
		}
	}
	cells, err := tableCells(root, ans.Column)
	if err != nil {
		return err
	}
	files, err := emit.Generate(models, all, cells)
	if err != nil {
		return err
	}
	if onlyTable {
		return os.WriteFile(filepath.Join(root, emit.TablePath), files[emit.TablePath], 0o644)
	}
	for path, data := range ans.Files {
		files[path] = data
	}
	if err := files.Write(root); err != nil {
		return err
	}
	fmt.Fprintf(out, "kindgen: %d kinds, %d files in %s\n", len(models), len(files), time.Since(start).Round(time.Millisecond))
	summariseAnswers(out, ans)
	return nil
}

// Where the kinds table's ASO and risk columns are read, under the repository root.
const (
	asoKindsFile    = "internal/asoconvert/testdata/aso-kinds.tsv"
	constraintsFile = "examples/policy/constraints.yaml"
)

// tableCells reads the kinds table's cells from outside the SDK: ASO's kinds, and the
// templates the example constraints apply to each kind (by template directory name:
// the constraint kind without its Aztenant prefix, lower-cased).
func tableCells(root string, answers func(string) string) (emit.Cells, error) {
	cells := emit.Cells{Answers: answers, ASO: map[string]bool{}, Risks: map[string][]string{}}
	table, err := os.ReadFile(filepath.Join(root, asoKindsFile))
	if err != nil {
		return cells, err
	}
	for _, line := range strings.Split(string(table), "\n") {
		if f := strings.Split(line, "\t"); len(f) > 2 && !strings.HasPrefix(line, "#") {
			cells.ASO[f[0]+"/"+f[1]] = true
		}
	}
	raw, err := os.ReadFile(filepath.Join(root, constraintsFile))
	if err != nil {
		return cells, err
	}
	for _, doc := range strings.Split(string(raw), "\n---") {
		var c struct {
			Kind string `json:"kind"`
			Spec struct {
				Match struct {
					Kinds []struct {
						APIGroups []string `json:"apiGroups"`
						Kinds     []string `json:"kinds"`
					} `json:"kinds"`
				} `json:"match"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
			return cells, fmt.Errorf("%s: %w", constraintsFile, err)
		}
		template := strings.ToLower(strings.TrimPrefix(c.Kind, "Aztenant"))
		for _, m := range c.Spec.Match.Kinds {
			for _, g := range m.APIGroups {
				for _, k := range m.Kinds {
					key := strings.TrimSuffix(g, ".aztenant.io") + "/" + k
					if !slices.Contains(cells.Risks[key], template) {
						cells.Risks[key] = append(cells.Risks[key], template)
					}
				}
			}
		}
	}
	for _, r := range cells.Risks {
		slices.Sort(r)
	}
	return cells, nil
}

// readFacts completes the models with what the committed files read from outside the
// SDK say: the api-versions earlier releases sent (history.File) and what Azure's specs
// say the SDK drops (specfacts.File). Facts of another api-version than a kind speaks
// fail: kindgen specfacts must run again when a pin moves.
func readFacts(models []*model.Kind) error {
	versions, err := history.Load(history.File)
	if err != nil {
		return err
	}
	facts, err := specfacts.Load(specfacts.File)
	if err != nil {
		return err
	}
	for _, m := range models {
		m.AcceptedAPIVersions = versions.Of(m.ARMType)
		switch t := facts.Of(m.ARMType); {
		case t == nil:
		case t.APIVersion != m.APIVersion:
			return fmt.Errorf("%s: %s has the specs' facts of api-version %s, the kind speaks %s: run kindgen specfacts again (hack/kindgen/README.md)", m.ARMType, specfacts.File, t.APIVersion, m.APIVersion)
		default:
			m.SpecNotReturned, m.SpecSource = t.NotReturned, "bicep-types-az "+t.File+" ("+facts.Source+")"
		}
	}
	return nil
}

// readHistory writes history.File: the api-versions every stable release of the pinned
// modules has sent for the kinds' ARM types, fetched through the Go module proxy.
func readHistory(ctx context.Context, file *config.File, out io.Writer) error {
	start := time.Now()
	all, pkgs, err := sdk.ReadAllPackages(ctx, ".", file, file.Kinds)
	if err != nil {
		return err
	}
	var types []string
	for _, m := range all {
		types = append(types, m.ARMType)
	}
	seen := map[string]bool{}
	var mods []history.Module
	for _, path := range file.ModulePaths(file.Kinds) {
		p := pkgs[path]
		if p == nil || seen[p.ModulePath] {
			continue
		}
		seen[p.ModulePath] = true
		mods = append(mods, history.Module{Path: p.ModulePath, Version: p.ModuleVersion, Dir: p.Dir()})
	}
	v, skipped, err := history.Read(ctx, mods, types, history.GoModDownload)
	if err != nil {
		return err
	}
	data, err := v.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(history.File, data, 0o644); err != nil {
		return err
	}
	n := 0
	for _, vs := range v {
		n += len(vs)
	}
	fmt.Fprintf(out, "kindgen history: %d api-versions of %d ARM types from %d modules' releases in %s\n", n, len(v), len(mods), time.Since(start).Round(time.Millisecond))
	for _, s := range skipped {
		fmt.Fprintf(out, "history: left out: %s\n", s)
	}
	return nil
}

// readSpecFacts writes specfacts.File from a bicep-types-az checkout: what Azure's specs say
// of each kind's body at its pinned api-version that the SDK drops.
func readSpecFacts(ctx context.Context, file *config.File, from, source string, out io.Writer) error {
	all, err := sdk.ReadAll(ctx, ".", file, file.Kinds)
	if err != nil {
		return err
	}
	var want []specfacts.Want
	for _, m := range all {
		want = append(want, specfacts.Want{ARMType: m.ARMType, APIVersion: m.APIVersion})
	}
	f, err := specfacts.Read(from, source, want)
	if err != nil {
		return err
	}
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(specfacts.File, data, 0o644); err != nil {
		return err
	}
	notReturned, secret := 0, 0
	for _, t := range f.Types {
		notReturned += len(t.NotReturned)
		secret += len(t.Secret)
	}
	fmt.Fprintf(out, "kindgen specfacts: %d ARM types, %d paths never returned, %d secret strings\n", len(f.Types), notReturned, secret)
	return nil
}

// answers writes only the answers of Azure's documented examples (examples.Dir); generate
// writes them too.
func answers(ctx context.Context, file *config.File, root string, out io.Writer) error {
	start := time.Now()
	all, pkgs, err := sdk.ReadAllPackages(ctx, ".", file, file.Kinds)
	if err != nil {
		return err
	}
	read := time.Since(start)
	if err := readFacts(all); err != nil {
		return err
	}
	ans, err := examples.Build(file, all, pkgs)
	if err != nil {
		return err
	}
	if err := ans.Write(root); err != nil {
		return err
	}
	fmt.Fprintf(out, "kindgen answers: modules read in %s, examples in %s\n", read.Round(time.Millisecond), (time.Since(start) - read).Round(time.Millisecond))
	summariseAnswers(out, ans)
	return nil
}

// summariseAnswers prints how many kinds have an example, the kinds without one, the
// files' size, and the examples left out.
func summariseAnswers(out io.Writer, ans *examples.Result) {
	documented, answered, examplesUsed := 0, 0, 0
	var without []string
	for key, k := range ans.Kinds {
		if k.Documented > 0 {
			documented++
		}
		if len(k.Sources) > 0 {
			answered++
			examplesUsed += len(k.Sources)
		} else {
			without = append(without, key)
		}
	}
	sort.Strings(without)
	fmt.Fprintf(out, "answers: %d of %d kinds have a PUT example at the pinned api-version, %d an answer (%d examples); %d files, %d bytes (budget %d)\n",
		documented, len(ans.Kinds), answered, examplesUsed, len(ans.Files), ans.Size, examples.Budget)
	if len(without) > 0 {
		fmt.Fprintf(out, "answers: no answer documented (the emulator echoes): %s\n", strings.Join(without, ", "))
	}
	for _, s := range ans.Skipped {
		fmt.Fprintf(out, "answers: left out: %s\n", s)
	}
}
