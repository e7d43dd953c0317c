package sdk

import (
	"go/ast"
	"go/types"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// rawOp is one exported client method as its code says, before it is placed against
// the resource's path.
type rawOp struct {
	method        string
	client        string // set for an operation of config's moreClients
	httpMethod    string
	path          string
	apiVersion    string
	statusCodes   []int
	longRunning   bool
	finalStateVia string
	pageable      bool
	// request and response are Go types of the package; nil when absent.
	request         types.Type
	requestOptional bool
	response        types.Type
	// item is a pager's element type.
	item types.Type
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// httpStatus covers the codes the SDK's HasStatusCode calls name.
var httpStatus = map[string]int{
	"StatusOK": 200, "StatusCreated": 201, "StatusAccepted": 202, "StatusNonAuthoritativeInfo": 203,
	"StatusNoContent": 204, "StatusResetContent": 205, "StatusPartialContent": 206,
	"StatusMovedPermanently": 301, "StatusFound": 302, "StatusNotModified": 304,
	"StatusNotFound": 404, "StatusConflict": 409,
}

// finalStates maps azcore's runtime.FinalStateVia… constants to the values ARM's
// x-ms-long-running-operation-options use.
var finalStates = map[string]string{
	"FinalStateViaAzureAsyncOp": "azure-async-operation",
	"FinalStateViaLocation":     "location",
	"FinalStateViaOriginalURI":  "original-uri",
	"FinalStateViaOpLocation":   "operation-location",
}

// clientOps reads every exported method of the client type.
func (p *Package) clientOps(client string) ([]rawOp, error) {
	ms := p.methods[client]
	named, _ := p.Types.Scope().Lookup(client).(*types.TypeName)
	if len(ms) == 0 || named == nil {
		return nil, &KindError{Kind: client, Problem: "no client " + client + " in " + p.Path}
	}
	mset := types.NewMethodSet(types.NewPointer(named.Type()))
	var names []string
	for name := range ms {
		if ast.IsExported(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var ops []rawOp
	for _, name := range names {
		op, ok, err := p.readOp(client, ms, mset, name)
		if err != nil {
			return nil, err
		}
		if ok {
			ops = append(ops, op)
		}
	}
	return ops, nil
}

func (p *Package) readOp(client string, ms map[string]*ast.FuncDecl, mset *types.MethodSet, name string) (rawOp, bool, error) {
	op := rawOp{method: name}
	fn := ms[name]
	sel := mset.Lookup(p.Types, name)
	if sel == nil {
		return op, false, nil
	}
	sig := sel.Obj().(*types.Func).Type().(*types.Signature)
	if sig.Results().Len() == 0 {
		return op, false, nil
	}
	// Follow the method into its unexported helpers (BeginX → x → xCreateRequest).
	var createReq, handleResp string
	visited := map[string]bool{}
	queue := []*ast.FuncDecl{fn}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f == nil || f.Body == nil || visited[f.Name.Name] {
			continue
		}
		visited[f.Name.Name] = true
		recv := ""
		if len(f.Recv.List[0].Names) > 0 {
			recv = f.Recv.List[0].Names[0].Name
		}
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				s, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				callee := s.Sel.Name
				if x, ok := s.X.(*ast.Ident); ok && x.Name == recv && !ast.IsExported(callee) {
					switch {
					case strings.HasSuffix(callee, "CreateRequest"):
						if createReq == "" {
							createReq = callee
						}
					case strings.HasSuffix(callee, "HandleResponse"):
						handleResp = callee
					default:
						queue = append(queue, ms[callee])
					}
				}
				if callee == "HasStatusCode" {
					for _, a := range n.Args[1:] {
						if as, ok := a.(*ast.SelectorExpr); ok {
							if code, ok := httpStatus[as.Sel.Name]; ok && !containsInt(op.statusCodes, code) {
								op.statusCodes = append(op.statusCodes, code)
							}
						}
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "FinalStateVia" {
					if v, ok := n.Value.(*ast.SelectorExpr); ok {
						op.finalStateVia = finalStates[v.Sel.Name]
						if op.finalStateVia == "" {
							op.finalStateVia = v.Sel.Name
						}
					}
				}
			}
			return true
		})
	}
	if createReq == "" {
		return op, false, nil // not an HTTP operation (none are, in generated clients)
	}
	if err := p.readCreateRequest(client, ms[createReq], mset, &op); err != nil {
		return op, false, err
	}
	sort.Ints(op.statusCodes)

	// The result: XResponse, *runtime.Poller[XResponse], *runtime.Pager[XResponse] or a
	// poller of a pager.
	res := sig.Results().At(0).Type()
	op.longRunning = strings.HasPrefix(name, "Begin") && isGeneric(res, "Poller")
	op.pageable = isGeneric(res, "Pager") || isGeneric(innerArg(res), "Pager")
	resp := p.localNamed(res)
	if resp == nil {
		return op, true, nil
	}
	op.response = p.responseBody(resp, ms[handleResp])
	if op.pageable && op.response != nil {
		if st, ok := op.response.Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				if f := st.Field(i); f.Name() == "Value" {
					if sl, ok := f.Type().(*types.Slice); ok {
						op.item = deref(sl.Elem())
					}
				}
			}
		}
	}
	return op, true, nil
}

// readCreateRequest reads the URL template, HTTP method, api-version and body of a
// …CreateRequest method.
func (p *Package) readCreateRequest(client string, fn *ast.FuncDecl, mset *types.MethodSet, op *rawOp) error {
	if fn == nil || fn.Body == nil {
		return &KindError{Kind: client, Problem: op.method + ": request builder not found"}
	}
	var sig *types.Signature
	if sel := mset.Lookup(p.Types, fn.Name.Name); sel != nil {
		sig = sel.Obj().Type().(*types.Signature)
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "urlPath" && op.path == "" {
					op.path, _ = p.constString(n.Rhs[0])
				}
			}
		case *ast.CallExpr:
			switch calleeName(n.Fun) {
			case "NewRequest":
				if len(n.Args) >= 2 {
					if s, ok := n.Args[1].(*ast.SelectorExpr); ok {
						op.httpMethod = strings.ToUpper(strings.TrimPrefix(s.Sel.Name, "Method"))
					}
				}
			case "Set":
				if len(n.Args) == 2 {
					if k, _ := stringLit(n.Args[0]); k == "api-version" {
						op.apiVersion, _ = p.constString(n.Args[1])
					}
				}
			case "MarshalAsJSON", "MarshalAsXML", "MarshalAsByteArray":
				if len(n.Args) >= 2 && sig != nil {
					op.request, op.requestOptional = paramType(sig, n.Args[1])
				}
			}
		}
		return true
	})
	if op.path == "" || op.httpMethod == "" {
		return &KindError{Kind: client, Problem: op.method + ": no urlPath or HTTP method in " + fn.Name.Name}
	}
	return nil
}

// paramType resolves the body expression of MarshalAsJSON: a parameter (parameters) or a
// field of one (options.Parameters, an optional body).
func paramType(sig *types.Signature, e ast.Expr) (types.Type, bool) {
	param := func(name string) types.Type {
		for i := 0; i < sig.Params().Len(); i++ {
			if v := sig.Params().At(i); v.Name() == name {
				return v.Type()
			}
		}
		return nil
	}
	switch e := e.(type) {
	case *ast.Ident:
		if t := param(e.Name); t != nil {
			return deref(t), false
		}
	case *ast.StarExpr:
		return paramType(sig, e.X)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil, false
		}
		t := param(x.Name)
		if t == nil {
			return nil, false
		}
		if st, ok := deref(t).Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				if st.Field(i).Name() == e.Sel.Name {
					return deref(st.Field(i).Type()), true
				}
			}
		}
	}
	return nil, false
}

// responseBody is the body type of a response struct: its embedded model, or the field
// the handler unmarshals into (result.Value).
func (p *Package) responseBody(resp *types.Named, handle *ast.FuncDecl) types.Type {
	st, ok := resp.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := 0; i < st.NumFields(); i++ {
		if st.Field(i).Embedded() {
			return deref(st.Field(i).Type())
		}
	}
	if handle == nil || handle.Body == nil {
		return nil
	}
	var field string
	ast.Inspect(handle.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && calleeName(c.Fun) == "UnmarshalAsJSON" && len(c.Args) == 2 {
			field = selectorField(c.Args[1])
		}
		return field == ""
	})
	for i := 0; i < st.NumFields(); i++ {
		if st.Field(i).Name() == field {
			return deref(st.Field(i).Type())
		}
	}
	return nil
}

// localNamed unwraps pointers and generic wrappers (runtime.Poller[T]) down to a named
// type of this package.
func (p *Package) localNamed(t types.Type) *types.Named {
	for i := 0; i < 4 && t != nil; i++ {
		t = deref(t)
		n, ok := t.(*types.Named)
		if !ok {
			return nil
		}
		if n.Obj().Pkg() == p.Types && n.TypeArgs().Len() == 0 {
			return n
		}
		t = innerArg(n)
	}
	return nil
}

func isGeneric(t types.Type, name string) bool {
	n, ok := deref(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.TypeArgs().Len() == 1
}

func innerArg(t types.Type) types.Type {
	n, ok := deref(t).(*types.Named)
	if !ok || n.TypeArgs().Len() != 1 {
		return nil
	}
	return n.TypeArgs().At(0)
}

func deref(t types.Type) types.Type {
	for {
		p, ok := t.(*types.Pointer)
		if !ok {
			return t
		}
		t = p.Elem()
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// lowerFirst turns ListKeys into listKeys.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
