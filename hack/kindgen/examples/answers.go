package examples

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
	"github.com/aztenant/aztenant/hack/kindgen/sdk"
)

// Dir is where the answers are written, relative to the repository root; each module's
// kinds go to zz_generated_<module alias>.json.
const Dir = "emulator/answers"

// Budget is the most the answers of every kind may weigh together, in bytes (design
// §3.2: they are committed and read by the emulator).
const Budget = 1_000_000

// envelope are the top-level properties that name the resource, not its content: the
// emulator makes its own.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "systemData": true, "etag": true}

// File is one module's answers file.
type File struct {
	// Module and Version are the SDK module the examples were read from.
	Module  string `json:"module"`
	Version string `json:"version"`
	// Kinds are by group/Kind (keyvault/Vault).
	Kinds map[string]*Kind `json:"kinds"`
}

// Kind is what Azure's documented examples say of one kind's PUT at the pinned
// api-version.
type Kind struct {
	ARMType    string `json:"armType"`
	APIVersion string `json:"apiVersion"`
	// Documented counts the PUT examples at the pinned api-version, with or without an
	// answer.
	Documented int `json:"documented"`
	// Sources are the URLs (azure-rest-api-specs at a commit) of the PUT examples that
	// document an answer, the smallest first, then by name; Key.From and Rewrite.From
	// index them. None: the emulator can only echo.
	Sources []string `json:"sources,omitempty"`
	// Example is the smallest of them (Sources[0]).
	Example *Example `json:"example,omitempty"`
	// More are the properties the other examples' answers have beyond Example's answer.
	More []Key `json:"more,omitempty"`
	// Adds are the properties an answer has that its request did not send and the SDK
	// does not mark read-only: defaults Azure fills in (over every example, the first
	// example's value).
	Adds []Key `json:"adds,omitempty"`
	// Drops are the properties a request sent that its answer leaves out: candidates for
	// write-only or never-returned values.
	Drops []Key `json:"drops,omitempty"`
	// Rewrites are the values an answer holds other than its request sent. Examples are
	// documentation, not captures: data for review, never applied.
	Rewrites []Rewrite `json:"rewrites,omitempty"`
	// NotReturned are the body paths (a list's elements "[]") Azure's REST API specs say
	// Azure takes on a write and never returns (hack/kindgen/specfacts.json), read from
	// NotReturnedSource: the emulator leaves them out of its answers.
	NotReturned       []string `json:"notReturned,omitempty"`
	NotReturnedSource string   `json:"notReturnedSource,omitempty"`
	// ChildName is how the examples' answers spell a nested resource's name, compared
	// with the names their request's URL gives: "path" (the names from the top-level
	// resource down, joined by "/": "site/slot", as App Service answers), "last" (the
	// resource's own name), "" when no example says, or they disagree.
	ChildName string `json:"childName,omitempty"`
}

// Example is one documented PUT: its request body and Azure's answer, without the
// resource's id, name, type, systemData and etag.
type Example struct {
	// Status is the HTTP code the answer is documented for.
	Status  int            `json:"status,omitempty"`
	Request map[string]any `json:"request"`
	Answer  map[string]any `json:"answer"`
}

// Result is the answers of every configured kind.
type Result struct {
	// Files are the answers files by repository-relative path.
	Files map[string][]byte
	// Kinds are by group/Kind, every configured kind (Sources empty: no example).
	Kinds map[string]*Kind
	// Skipped says which PUT examples were left out and why (another api-version, no
	// answer documented).
	Skipped []string
	// Size is the files' total size in bytes.
	Size int
}

// Build reads the PUT examples of every configured kind from its loaded SDK package;
// models are the kinds' models, pkgs the packages by import path (sdk.ReadAllPackages).
// An example it cannot evaluate fails the build: a generator must not skip one silently.
func Build(file *config.File, models []*model.Kind, pkgs map[string]*sdk.Package) (*Result, error) {
	byKey := map[string]*model.Kind{}
	for _, m := range models {
		byKey[m.Group.Name+"/"+m.Kind] = m
	}
	res := &Result{Files: map[string][]byte{}, Kinds: map[string]*Kind{}}
	files := map[string]*File{}
	dirs := map[string]*exampleFiles{}
	for _, ck := range file.Kinds {
		m := byKey[ck.Key()]
		if m == nil {
			continue
		}
		p := pkgs[file.Modules[ck.Module]]
		if p == nil {
			return nil, fmt.Errorf("%s: module %s is not loaded", ck.Key(), file.Modules[ck.Module])
		}
		x := dirs[p.Path]
		if x == nil {
			var err error
			if x, err = newExampleFiles(p.Dir()); err != nil {
				return nil, err
			}
			dirs[p.Path] = x
		}
		k, skipped, err := readKind(p, x, ck, m)
		if err != nil {
			return nil, err
		}
		res.Skipped = append(res.Skipped, skipped...)
		res.Kinds[ck.Key()] = k
		f := files[ck.Module]
		if f == nil {
			f = &File{Module: m.Module.Path, Version: m.Module.Version, Kinds: map[string]*Kind{}}
			files[ck.Module] = f
		}
		f.Kinds[ck.Key()] = k
	}
	for alias, f := range files {
		data, err := marshal(f)
		if err != nil {
			return nil, err
		}
		data = append(data, '\n')
		res.Files[path.Join(Dir, "zz_generated_"+alias+".json")] = data
		res.Size += len(data)
	}
	if res.Size > Budget {
		return nil, fmt.Errorf("the answers weigh %d bytes, over their budget of %d: keep fewer keys per kind", res.Size, Budget)
	}
	return res, nil
}

// evaluated is one example with its request and answer as JSON.
type evaluated struct {
	c         *call
	req, ans  *node
	size      int
	changes   changes
	sourceIdx int
}

// readKind evaluates the kind's PUT examples at its api-version and sums them up.
func readKind(p *sdk.Package, x *exampleFiles, ck config.Kind, m *model.Kind) (*Kind, []string, error) {
	k := &Kind{ARMType: m.ARMType, APIVersion: m.APIVersion, NotReturned: m.SpecNotReturned}
	if len(k.NotReturned) > 0 {
		k.NotReturnedSource = m.SpecSource
	}
	if m.Create == nil {
		return k, nil, nil
	}
	calls, err := x.calls(m.Client, m.Create.Method)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ck.Key(), err)
	}
	ev := &evaluator{p: p, fset: x.fset, secret: secretsOf(m)}
	sig := signature(p, m.Client, m.Create.Method)
	var done []*evaluated
	var skipped []string
	spellings := map[string]int{}
	defer func() {
		if len(spellings) == 1 {
			for sp := range spellings {
				k.ChildName = sp
			}
		}
	}()
	for _, c := range calls {
		ok, err := pathParamsMatch(ev, sig, c, ck.PathParams)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ck.Key(), err)
		}
		if !ok {
			continue // another record type of a shared client
		}
		if !strings.Contains(c.Source, "/"+m.APIVersion+"/") {
			skipped = append(skipped, fmt.Sprintf("%s: %s is not at api-version %s", ck.Key(), c.Source, m.APIVersion))
			continue
		}
		k.Documented++
		if c.Answer == nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s documents no answer", ck.Key(), c.Source))
			continue
		}
		req, err := request(ev, sig, c, m.Create)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the request of %s: %w", ck.Key(), c.Func, err)
		}
		ans, err := ev.eval(c.Answer, nil, "")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the answer of %s: %w", ck.Key(), c.Func, err)
		}
		if !ans.isObj() {
			return nil, nil, fmt.Errorf("%s: the answer of %s is not an object", ck.Key(), c.Func)
		}
		if n := ans.obj["name"]; n != nil {
			if sp := childNameSpelling(ev, sig, c, m.Path, n.val); sp != "" {
				spellings[sp]++
			}
		}
		for name := range envelope {
			delete(req.obj, name)
			delete(ans.obj, name)
		}
		done = append(done, &evaluated{c: c, req: req, ans: ans, size: req.size() + ans.size()})
	}
	if len(done) == 0 {
		return k, skipped, nil
	}
	sort.SliceStable(done, func(i, j int) bool {
		if done[i].size != done[j].size {
			return done[i].size < done[j].size
		}
		return done[i].c.Func < done[j].c.Func
	})
	first := done[0]
	k.Example = &Example{Status: first.c.Status, Request: first.req.plain().(map[string]any), Answer: first.ans.plain().(map[string]any)}
	has := map[string]bool{}
	shape("", first.ans, has)
	var more []Key
	var all changes
	var answered []map[string]bool
	for i, e := range done {
		k.Sources = append(k.Sources, e.c.Source)
		if i > 0 {
			beyond("", e.ans, has, i, &more)
		}
		var ch changes
		compare("", e.req, e.ans, &ch)
		for j := range ch.adds {
			ch.adds[j].From = i
		}
		for j := range ch.drops {
			ch.drops[j].From = i
		}
		for j := range ch.rewrites {
			ch.rewrites[j].From = i
		}
		answered = append(answered, ch.answered)
		all.adds = append(all.adds, ch.adds...)
		all.drops = append(all.drops, ch.drops...)
		all.rewrites = append(all.rewrites, ch.rewrites...)
	}
	k.More = firstByPath(more)
	k.Adds = firstByPath(all.adds)
	k.Drops = firstByPath(all.drops)
	for i := range k.Drops {
		sp := schemaPath(k.Drops[i].Path)
		for _, a := range answered {
			if a[sp] {
				k.Drops[i].Answered++
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range all.rewrites {
		if !seen[r.Path] {
			seen[r.Path] = true
			k.Rewrites = append(k.Rewrites, r)
		}
	}
	sort.SliceStable(k.Rewrites, func(i, j int) bool { return k.Rewrites[i].Path < k.Rewrites[j].Path })
	return k, skipped, nil
}

// secretsOf says, by the kind's model, why a field holds a secret.
func secretsOf(m *model.Kind) func(typeName, goField string) string {
	return func(typeName, goField string) string {
		t := m.Types[typeName]
		if t == nil {
			return ""
		}
		for _, f := range t.Fields {
			if f.GoName == goField && f.Secret != nil {
				return f.Secret.Source + ": " + f.Secret.Reason
			}
		}
		return ""
	}
}

// firstByPath keeps the first key of each path (the smallest example's), sorted by path.
func firstByPath(keys []Key) []Key {
	seen := map[string]bool{}
	var out []Key
	for _, k := range keys {
		if !seen[k.Path] {
			seen[k.Path] = true
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// signature is the client method's Go signature.
func signature(p *sdk.Package, client, method string) *types.Signature {
	tn, _ := p.Types.Scope().Lookup(client).(*types.TypeName)
	if tn == nil {
		return nil
	}
	sel := types.NewMethodSet(types.NewPointer(tn.Type())).Lookup(p.Types, method)
	if sel == nil {
		return nil
	}
	return sel.Obj().Type().(*types.Signature)
}

// pathParamsMatch: for a client that serves several types (a record set's recordType:
// A), the example's argument for each fixed URL parameter has the configured value.
func pathParamsMatch(ev *evaluator, sig *types.Signature, c *call, params map[string]string) (bool, error) {
	for name, want := range params {
		for i := 0; sig != nil && i < sig.Params().Len() && i < len(c.Call.Args); i++ {
			if !strings.EqualFold(sig.Params().At(i).Name(), name) {
				continue
			}
			n, err := ev.eval(c.Call.Args[i], sig.Params().At(i).Type(), "")
			if err != nil {
				return false, err
			}
			if s, ok := n.val.(string); !ok || !strings.EqualFold(s, want) {
				return false, nil
			}
		}
	}
	return true, nil
}

// request evaluates the body the example sends: the argument of the create's body type,
// or, for a body the options carry, that field of the options literal (none: {}).
func request(ev *evaluator, sig *types.Signature, c *call, op *model.Operation) (*node, error) {
	if sig == nil || sig.Params().Len() != len(c.Call.Args) {
		return nil, fmt.Errorf("%s: the call's arguments do not match %s", c.Pos, op.Method)
	}
	if op.Request == nil {
		return object(), nil // a PUT without a body (a SQL server's DNS alias)
	}
	isBody := func(t types.Type) bool {
		if pt, ok := t.(*types.Pointer); ok {
			t = pt.Elem()
		}
		n, ok := t.(*types.Named)
		return ok && op.Request != nil && n.Obj().Name() == op.Request.Name
	}
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		if isBody(t) && !op.RequestOptional {
			return evalObject(ev, c.Call.Args[i], t)
		}
	}
	if op.RequestOptional {
		opts := c.Call.Args[len(c.Call.Args)-1]
		lit, _ := unaddr(opts).(*ast.CompositeLit)
		if lit == nil {
			return object(), nil
		}
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			pt := sig.Params().At(sig.Params().Len() - 1).Type()
			if p, ok := pt.(*types.Pointer); ok {
				pt = p.Elem()
			}
			st, _ := pt.Underlying().(*types.Struct)
			for j := 0; st != nil && j < st.NumFields(); j++ {
				if id, ok := kv.Key.(*ast.Ident); ok && st.Field(j).Name() == id.Name && isBody(st.Field(j).Type()) {
					return evalObject(ev, kv.Value, st.Field(j).Type())
				}
			}
		}
		return object(), nil
	}
	return nil, fmt.Errorf("%s: no argument of %s has the body type", c.Pos, op.Method)
}

func evalObject(ev *evaluator, e ast.Expr, t types.Type) (*node, error) {
	n, err := ev.eval(e, t, "")
	if err != nil {
		return nil, err
	}
	if n == nil {
		return object(), nil
	}
	if !n.isObj() {
		return nil, fmt.Errorf("the body is not an object")
	}
	return n, nil
}

func unaddr(e ast.Expr) ast.Expr {
	if u, ok := e.(*ast.UnaryExpr); ok {
		return u.X
	}
	return e
}

// Write writes the answers files under the repository root and removes answers files of
// modules that no longer have kinds.
func (r *Result) Write(root string) error {
	dir := filepath.Join(root, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "zz_generated_*.json"))
	if err != nil {
		return err
	}
	for _, p := range old {
		rel, _ := filepath.Rel(root, p)
		if _, keep := r.Files[filepath.ToSlash(rel)]; !keep {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for p, data := range r.Files {
		full := filepath.Join(root, p)
		if cur, err := os.ReadFile(full); err == nil && bytes.Equal(cur, data) {
			continue
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Column is the kinds table's "answers" cell of a kind: a link to the example its
// emulator answers from, or echo when Azure documents none.
func (r *Result) Column(key string) string {
	k := r.Kinds[key]
	switch {
	case k == nil || k.Documented == 0:
		return "echo (no PUT example)"
	case len(k.Sources) == 0:
		return "echo (its PUT examples document no answer)"
	}
	return fmt.Sprintf("[example](%s)", k.Sources[0])
}

// childNameSpelling says how an example's answer spells a nested resource's name: "path"
// when it is the names of the call's URL below the provider joined by "/" (fixed segments
// as the template writes them), "last" when it is the resource's own name, "" for a
// top-level resource or a name that is neither.
func childNameSpelling(ev *evaluator, sig *types.Signature, c *call, template string, answered any) string {
	name, ok := answered.(string)
	_, below, found := strings.Cut(template, "/providers/")
	if !ok || !found || sig == nil {
		return ""
	}
	segs := strings.Split(below, "/")
	var names []string
	for i := 2; i < len(segs); i += 2 { // namespace, then type/name pairs
		seg := segs[i]
		param, isParam := strings.CutPrefix(seg, "{")
		if !isParam {
			names = append(names, seg)
			continue
		}
		param = strings.TrimSuffix(param, "}")
		value := ""
		for j := 0; j < sig.Params().Len() && j < len(c.Call.Args); j++ {
			if strings.EqualFold(sig.Params().At(j).Name(), param) {
				if n, err := ev.eval(c.Call.Args[j], sig.Params().At(j).Type(), ""); err == nil {
					value, _ = n.val.(string)
				}
			}
		}
		if value == "" {
			return ""
		}
		names = append(names, value)
	}
	switch {
	case len(names) < 2:
		return ""
	case strings.EqualFold(name, strings.Join(names, "/")):
		return "path"
	case strings.EqualFold(name, names[len(names)-1]):
		return "last"
	}
	return ""
}
