package examples

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// call is one documented call of a client method, as an example test writes it.
type call struct {
	// Func is the example function (ExampleVaultsClient_BeginCreateOrUpdate_createANewVault).
	Func string
	// Source is the URL of the example JSON in azure-rest-api-specs (its commit pinned).
	Source string
	// Call is the client method call; its arguments carry the request.
	Call *ast.CallExpr
	// Status is the HTTP code the response block documents (0 when it names none).
	Status int
	// Answer is the response literal of the comment block; nil when the example documents
	// no body.
	Answer ast.Expr
	// Pos is where the function is, for messages.
	Pos token.Position
}

var (
	sourceLine = regexp.MustCompile(`Generated from example definition: (\S+)`)
	statusLine = regexp.MustCompile(`If the HTTP response code is (\d+)`)
	answerLine = regexp.MustCompile(`^res(\.\w+)? = `)
)

// exampleFiles parses the example tests of a package directory once each.
type exampleFiles struct {
	dir   string
	fset  *token.FileSet
	files map[string]*ast.File
	// specs is the URL of the TypeSpec project's examples folder for modules generated
	// from TypeSpec, whose tests name examples relative to it (2024-12-30/ServerCreate.json).
	specs string
}

// specsRepo is where Azure's API specs and their examples are published.
const specsRepo = "https://github.com/Azure/azure-rest-api-specs/blob/"

// tspLocation is a TypeSpec-generated module's tsp-location.yaml: the specs folder and
// commit it was generated from.
type tspLocation struct {
	Directory string `json:"directory"`
	Commit    string `json:"commit"`
}

func newExampleFiles(dir string) (*exampleFiles, error) {
	x := &exampleFiles{dir: dir, fset: token.NewFileSet(), files: map[string]*ast.File{}}
	data, err := os.ReadFile(filepath.Join(dir, "tsp-location.yaml"))
	switch {
	case os.IsNotExist(err):
		return x, nil
	case err != nil:
		return nil, err
	}
	var loc tspLocation
	if err := yaml.Unmarshal(data, &loc); err != nil {
		return nil, fmt.Errorf("%s/tsp-location.yaml: %w", dir, err)
	}
	if loc.Directory == "" || loc.Commit == "" {
		return nil, fmt.Errorf("%s/tsp-location.yaml names no directory and commit", dir)
	}
	x.specs = specsRepo + loc.Commit + "/" + strings.Trim(loc.Directory, "/") + "/examples/"
	return x, nil
}

// parse returns the example test file at name ("" if there is none).
func (x *exampleFiles) parse(name string) (*ast.File, error) {
	if f, ok := x.files[name]; ok {
		return f, nil
	}
	path := filepath.Join(x.dir, name)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		x.files[name] = nil
		return nil, nil
	}
	f, err := parser.ParseFile(x.fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	x.files[name] = f
	return f, nil
}

// calls finds the examples of client.method: by the SDK generator's naming, in the
// client's file (vaults_client_example_test.go for VaultsClient), functions
// Example<Client>_<Method> or Example<Client>_<Method>_<example>.
func (x *exampleFiles) calls(client, method string) ([]*call, error) {
	name := strings.ToLower(strings.TrimSuffix(client, "Client")) + "_client_example_test.go"
	if client == "Client" { // a module's only client (armredis, armsignalr)
		name = "client_example_test.go"
	}
	f, err := x.parse(name)
	if err != nil || f == nil {
		return nil, err
	}
	prefix := "Example" + client + "_" + method
	var out []*call
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, prefix) {
			continue
		}
		if rest := fn.Name.Name[len(prefix):]; rest != "" && rest[0] != '_' {
			continue // another method whose name starts alike (CreateOrUpdateSlot)
		}
		c, err := x.read(f, fn, client, method)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Func < out[j].Func })
	return out, nil
}

// read takes one example function apart: its source URL, the client call, and the
// response block of its comments.
func (x *exampleFiles) read(f *ast.File, fn *ast.FuncDecl, client, method string) (*call, error) {
	c := &call{Func: fn.Name.Name, Pos: x.fset.Position(fn.Pos())}
	if fn.Doc != nil {
		if m := sourceLine.FindStringSubmatch(fn.Doc.Text()); m != nil {
			c.Source = m[1]
		}
	}
	switch {
	case c.Source == "":
		return nil, fmt.Errorf("%s: %s names no example definition", c.Pos, c.Func)
	case !strings.HasPrefix(c.Source, "https://"):
		if x.specs == "" {
			return nil, fmt.Errorf("%s: %s names its example %s relative to a folder no tsp-location.yaml gives", c.Pos, c.Func, c.Source)
		}
		c.Source = x.specs + c.Source
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		ce, ok := n.(*ast.CallExpr)
		if !ok || c.Call != nil {
			return c.Call == nil
		}
		sel, ok := ce.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != method {
			return true
		}
		if recv, ok := sel.X.(*ast.CallExpr); ok {
			if rs, ok := recv.Fun.(*ast.SelectorExpr); ok && rs.Sel.Name == "New"+client {
				c.Call = ce
				return false
			}
		}
		return true
	})
	if c.Call == nil {
		return nil, fmt.Errorf("%s: %s does not call %s.%s", c.Pos, c.Func, client, method)
	}
	for _, g := range f.Comments {
		if g.Pos() < fn.Body.Lbrace || g.End() > fn.Body.Rbrace {
			continue
		}
		for i, cm := range g.List {
			text := strings.TrimSpace(strings.TrimPrefix(cm.Text, "//"))
			if m := statusLine.FindStringSubmatch(text); m != nil {
				c.Status, _ = strconv.Atoi(m[1])
			}
			loc := answerLine.FindStringIndex(text)
			if loc == nil {
				continue
			}
			var src strings.Builder
			src.WriteString(text[loc[1]:])
			for _, more := range g.List[i+1:] {
				src.WriteString("\n")
				src.WriteString(strings.TrimPrefix(more.Text, "//"))
			}
			e, err := parser.ParseExpr(src.String())
			if err != nil {
				return nil, fmt.Errorf("%s: the response block of %s: %v", x.fset.Position(cm.Pos()), c.Func, err)
			}
			c.Answer = e
			return c, nil
		}
	}
	return c, nil
}
