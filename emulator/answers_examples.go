package emulator

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Answers from Azure's documented examples (docs/design/azure-answers.md §3.3): for a
// generated kind, kindgen reads the PUT examples of the pinned SDK module
// (azure-rest-api-specs examples/, as the module's example tests carry them) into
// answers/zz_generated_<module>.json. A write of such a kind is answered from its
// request Q, never from the example's values where Q has one:
//
//   - defaults added: each documented add (a property an example's answer has that its
//     request did not send and the SDK does not mark read-only) whose parent object Q
//     sent, inside list elements Q sent, where Q has nothing, with the example's value;
//     except under tags (the user's, but an empty map), at a key that is a map entry
//     (an ID or a name with / or :), an element added to a list (an added set element
//     comes only from a cited transform), and a value holding an ARM ID (the example's
//     own resources, never a default);
//   - write-only values dropped: a property every example that sent it left out of its
//     answer, which the SDK holds for a secret (kindgen's judgement: a password, key or
//     connection string), or which citedDrops lists with its public source. A property
//     only the examples leave out is reported (the kinds table in answers/README.md),
//     not dropped: examples are documentation, not captures;
//   - rewrites: only the cited transforms of citedRewrites (display-name locations,
//     re-indented XML), which explain rewrites the examples show. Every other rewrite an
//     example shows is counted in the table as unexplained and never applied.
//
// Read-only values are the type behaviours' (ids, provisioningState), as before. The
// files are embedded and read once per process, at the first write that needs them.

//go:embed answers/zz_generated_*.json
var exampleFS embed.FS

// ExampleAnswer says how the emulator answers writes of one kind from Azure's documented
// examples at the kind's pinned api-version (ExampleAnswers lists every kind).
type ExampleAnswer struct {
	// Kind is group/Kind as kindgen names it (keyvault/Vault).
	Kind       string `json:"kind"`
	ARMType    string `json:"armType"`
	APIVersion string `json:"apiVersion"`
	// Answers is "example" when writes are answered from the examples, "echo" when no
	// example documents an answer, or "behaviour" for a kind written by hand, whose type
	// behaviour answers.
	Answers string `json:"answers"`
	// Sources are the examples' URLs (azure-rest-api-specs at a commit), smallest first.
	Sources []string `json:"sources,omitempty"`
	// Defaults are the documented defaults the emulator adds; Documented how many the
	// examples show in all (the others are left out by the rules above).
	Defaults   []string `json:"defaults,omitempty"`
	Documented int      `json:"documented"`
	// Drops are the write-only values dropped, each as "path (why)".
	Drops []string `json:"drops,omitempty"`
	// ReportedDrops are values the examples leave out that are not known to be
	// write-only: answered as sent.
	ReportedDrops []string `json:"reportedDrops,omitempty"`
	// CitedRewrites are the rewrites the examples show that a cited transform applies;
	// UnexplainedRewrites those it does not, never applied.
	CitedRewrites       []string `json:"citedRewrites,omitempty"`
	UnexplainedRewrites []string `json:"unexplainedRewrites,omitempty"`
}

// exampleAnswer is one kind's compiled answer rules.
type exampleAnswer struct {
	ExampleAnswer
	adds  []exampleAdd
	drops [][]pathToken
	cited []*compiledAnswer
}

type exampleAdd struct {
	path  []pathToken
	value any
}

// The JSON kindgen writes (hack/kindgen/examples.File), only what the emulator reads.
type exampleFile struct {
	Kinds map[string]struct {
		ARMType    string           `json:"armType"`
		APIVersion string           `json:"apiVersion"`
		Sources    []string         `json:"sources"`
		Adds       []exampleKey     `json:"adds"`
		Drops      []exampleKey     `json:"drops"`
		Rewrites   []exampleRewrite `json:"rewrites"`
		// NotReturned are what Azure's REST API specs say Azure never returns.
		NotReturned       []string `json:"notReturned"`
		NotReturnedSource string   `json:"notReturnedSource"`
	} `json:"kinds"`
}

type exampleKey struct {
	Path     string          `json:"path"`
	Value    json.RawMessage `json:"value"`
	Secret   string          `json:"secret"`
	Answered int             `json:"answered"`
}

type exampleRewrite struct {
	Path  string `json:"path"`
	Class string `json:"class"`
}

// loadedExamples are every kind's rules by lower-cased ARM type, read once.
var loadedExamples = sync.OnceValues(func() (map[string]*exampleAnswer, error) {
	return loadExamples(exampleFS)
})

// exampleAnswerOf is the compiled rules of an ARM type (lower-cased), nil when none.
func exampleAnswerOf(typeKey string) *exampleAnswer {
	all, err := loadedExamples()
	if err != nil {
		return nil
	}
	return all[typeKey]
}

// ExampleAnswers lists, by kind, how the emulator answers writes from Azure's documented
// examples when Config.AnswerFromExamples is on.
func ExampleAnswers() ([]ExampleAnswer, error) {
	all, err := loadedExamples()
	if err != nil {
		return nil, err
	}
	out := make([]ExampleAnswer, 0, len(all))
	for _, x := range all {
		out = append(out, x.ExampleAnswer)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out, nil
}

func loadExamples(fsys fs.FS) (map[string]*exampleAnswer, error) {
	generated := map[string]bool{}
	for _, b := range generatedBehaviours() {
		key := strings.ToLower(b.fullType)
		generated[key] = !ownAnswers[key] // else its behaviour answers
	}
	cited := map[string][]*compiledAnswer{}
	for _, t := range citedRewrites {
		c, err := compileAnswer(t)
		if err != nil {
			return nil, fmt.Errorf("cited transform %s: %w", t, err)
		}
		cited[c.typeKey] = append(cited[c.typeKey], c)
	}
	names, err := fs.Glob(fsys, "answers/zz_generated_*.json")
	if err != nil {
		return nil, err
	}
	out := map[string]*exampleAnswer{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var f exampleFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for kind, k := range f.Kinds {
			typeKey := strings.ToLower(k.ARMType)
			x := &exampleAnswer{ExampleAnswer: ExampleAnswer{Kind: kind, ARMType: k.ARMType, APIVersion: k.APIVersion,
				Sources: k.Sources, Documented: len(k.Adds)}}
			out[typeKey] = x
			switch {
			case !generated[typeKey]:
				x.Answers = "behaviour"
				continue
			case len(k.Sources) == 0:
				x.Answers = "echo"
				continue
			}
			x.Answers = "example"
			for _, a := range k.Adds {
				if err := x.addDefault(a); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", name, kind, err)
				}
			}
			// Deepest first: a default inside an object another add brings is the
			// example's, not one the request sent.
			sort.SliceStable(x.adds, func(i, j int) bool { return len(x.adds[i].path) > len(x.adds[j].path) })
			x.addDrops(k.Drops, k.NotReturned, k.NotReturnedSource)
			x.cited = cited[typeKey]
			for _, r := range k.Rewrites {
				if c := explaining(x.cited, r); c != nil && (r.Class == "case" || r.Class == "spelling" || c.Op == OpSQLSkuName || c.Op == OpCIDR) {
					x.CitedRewrites = append(x.CitedRewrites, r.Path+" ("+string(c.Op)+")")
				} else {
					x.UnexplainedRewrites = append(x.UnexplainedRewrites, r.Path+" ("+r.Class+")")
				}
			}
		}
	}
	return out, nil
}

// armIDValue: a string naming an ARM resource, as examples name their own resources.
var armIDValue = regexp.MustCompile(`(?i)^/subscriptions/|/providers/[a-z0-9]+\.[a-z0-9]+/`)

// addDefault keeps a documented add if the rules take it (see the file's comment).
func (x *exampleAnswer) addDefault(a exampleKey) error {
	path, err := parseAnswerPath(a.Path)
	if err != nil {
		return nil // a key holding . or [ : a map entry, not a property
	}
	v, err := decodeValue(a.Value)
	if err != nil {
		return fmt.Errorf("add %s: %w", a.Path, err)
	}
	last := path[len(path)-1]
	switch {
	case last.kind != tokKey: // an element added to a list
		return nil
	case last.key == "provisioningState": // the emulator's, as every read-only value
		return nil
	case path[0].key == "tags" && !isEmpty(v):
		return nil
	case anyKey(path, func(k string) bool { return strings.ContainsAny(k, "/:") }):
		return nil
	case holdsARMID(v):
		return nil
	}
	x.adds = append(x.adds, exampleAdd{path: path, value: v})
	x.Defaults = append(x.Defaults, a.Path)
	return nil
}

// addDrops keeps the confirmed write-only drops, by schema path (any element of a
// list), and reports the others.
func (x *exampleAnswer) addDrops(drops []exampleKey, specNotReturned []string, specSource string) {
	seen := map[string]bool{}
	bySpec := func(p string) string {
		if slices.Contains(specNotReturned, p) {
			return "write-only: Azure's REST API specs say Azure never returns it, " + specSource
		}
		return ""
	}
	for _, d := range drops {
		p := schemaPath(d.Path)
		if seen[p] {
			continue
		}
		seen[p] = true
		why := ""
		switch {
		case d.Secret != "" && d.Answered == 0:
			why = "write-only: every example that sent it left it out, and the SDK holds it for a secret (" + d.Secret + ")"
		case bySpec(p) != "":
			why = bySpec(p)
		default:
			if c := citedDrop(x.ARMType, p); c != nil {
				why = "write-only: " + c.Source
			}
		}
		path, err := parseAnswerPath(p)
		if why == "" || err != nil {
			how := "left out by every example that sent it"
			if d.Answered > 0 {
				how = fmt.Sprintf("left out by an example, answered by %d", d.Answered)
			}
			x.ReportedDrops = append(x.ReportedDrops, p+" ("+how+")")
			continue
		}
		x.drops = append(x.drops, path)
		x.Drops = append(x.Drops, p+" ("+why+")")
	}
	for _, c := range citedDrops {
		if p := c.Path; typeMatches(c.Type, x.ARMType) && !seen[p] {
			if path, err := parseAnswerPath(p); err == nil {
				seen[p] = true
				x.drops = append(x.drops, path)
				x.Drops = append(x.Drops, p+" (write-only: "+c.Source+")")
			}
		}
	}
	for _, p := range specNotReturned {
		if !seen[p] {
			if path, err := parseAnswerPath(p); err == nil {
				seen[p] = true
				x.drops = append(x.drops, path)
				x.Drops = append(x.Drops, p+" ("+bySpec(p)+")")
			}
		}
	}
}

var elementSelector = regexp.MustCompile(`\[(name=[^\]]*|[0-9]+)\]`)

// schemaPath is path with every element selector ([name=x], [2]) as [] (any element).
func schemaPath(path string) string { return elementSelector.ReplaceAllString(path, "[]") }

func anyKey(path []pathToken, f func(string) bool) bool {
	for _, t := range path {
		if t.kind == tokKey && f(t.key) {
			return true
		}
	}
	return false
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func holdsARMID(v any) bool {
	switch x := v.(type) {
	case string:
		return armIDValue.MatchString(x)
	case map[string]any:
		for _, e := range x {
			if holdsARMID(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsARMID(e) {
				return true
			}
		}
	}
	return false
}

// explaining is the cited transform whose path covers a rewrite's (any element).
func explaining(cited []*compiledAnswer, r exampleRewrite) *compiledAnswer {
	for _, c := range cited {
		if p := schemaPath(c.Path); p == schemaPath(r.Path) || strings.HasPrefix(schemaPath(r.Path), p+".") {
			return c
		}
	}
	return nil
}

// apply answers body, the write of the resource id, by the kind's rules.
func (x *exampleAnswer) apply(id string, body map[string]any) {
	for _, a := range x.adds {
		editPath(body, a.path, false, func(v any, ok bool) (any, bool) {
			if ok {
				return v, true
			}
			return cloneValue(a.value), true
		})
	}
	for _, d := range x.drops {
		editPath(body, d, false, func(any, bool) (any, bool) { return nil, false })
	}
	for _, c := range x.cited {
		c.apply(id, body)
	}
}
