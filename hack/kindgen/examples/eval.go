package examples

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"time"

	"github.com/aztenant/aztenant/hack/kindgen/sdk"
)

// evaluator turns the Go literals of an SDK package's example tests into the JSON the
// SDK would send or read, by the package's types and wire names.
type evaluator struct {
	p    *sdk.Package
	fset *token.FileSet
	// secret, when set, says why a struct's field (by Go names) holds a secret ("" when
	// it does not): the kind model's judgement, config overrides included.
	secret func(typeName, goField string) string
}

// evalError is an expression the evaluator does not know, with where it is.
type evalError struct {
	pos     token.Position
	problem string
}

func (e *evalError) Error() string { return e.pos.String() + ": " + e.problem }

func (ev *evaluator) fail(n ast.Node, format string, args ...any) error {
	return &evalError{pos: ev.fset.Position(n.Pos()), problem: fmt.Sprintf(format, args...)}
}

// eval evaluates e, whose Go type is want (nil when unknown, as inside any); format is
// the wire format of the field holding it (times). A nil node is an absent value.
func (ev *evaluator) eval(e ast.Expr, want types.Type, format string) (*node, error) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return ev.eval(e.X, want, format)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.AND:
			return ev.eval(e.X, want, format)
		case token.SUB, token.ADD:
			n, err := ev.eval(e.X, want, format)
			if err != nil {
				return nil, err
			}
			num, ok := n.val.(json.Number)
			if !ok {
				return nil, ev.fail(e, "sign of a value that is not a number")
			}
			if e.Op == token.SUB {
				num = json.Number("-" + strings.TrimPrefix(string(num), "-"))
			}
			return &node{val: num}, nil
		}
	case *ast.BasicLit:
		return ev.basic(e)
	case *ast.Ident:
		switch e.Name {
		case "true", "false":
			return &node{val: e.Name == "true"}, nil
		case "nil":
			return nil, nil
		}
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok && pkg.Name == ev.p.Name {
			if c, ok := ev.p.Types.Scope().Lookup(e.Sel.Name).(*types.Const); ok {
				return constNode(c.Val())
			}
		}
	case *ast.CallExpr:
		return ev.call(e, want, format)
	case *ast.CompositeLit:
		return ev.composite(e, want)
	}
	return nil, ev.fail(e, "cannot evaluate %T", e)
}

func (ev *evaluator) basic(e *ast.BasicLit) (*node, error) {
	switch e.Kind {
	case token.STRING:
		s, err := strconv.Unquote(e.Value)
		if err != nil {
			return nil, ev.fail(e, "string %s: %v", e.Value, err)
		}
		return &node{val: s}, nil
	case token.INT, token.FLOAT:
		return constNode(constant.MakeFromLiteral(e.Value, e.Kind, 0))
	}
	return nil, ev.fail(e, "literal %s", e.Value)
}

// constNode is a Go constant as JSON: strings, booleans, and numbers written as JSON
// numbers (integers exactly).
func constNode(v constant.Value) (*node, error) {
	switch v.Kind() {
	case constant.String:
		return &node{val: constant.StringVal(v)}, nil
	case constant.Bool:
		return &node{val: constant.BoolVal(v)}, nil
	case constant.Int:
		return &node{val: json.Number(v.ExactString())}, nil
	case constant.Float:
		f, _ := constant.Float64Val(v)
		return &node{val: json.Number(strconv.FormatFloat(f, 'g', -1, 64))}, nil
	}
	return nil, fmt.Errorf("constant %s of kind %s", v, v.Kind())
}

// call evaluates to.Ptr(x), conversions (int32(1), []byte("…"), an enum's type), and the
// SDK generator's two time expressions: a func literal around time.Parse, and time.Unix.
func (ev *evaluator) call(e *ast.CallExpr, want types.Type, format string) (*node, error) {
	fun := e.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok { // to.Ptr[int32](1)
		fun = ix.X
	}
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		pkg, _ := f.X.(*ast.Ident)
		switch {
		case pkg == nil:
		case pkg.Name == "to" && f.Sel.Name == "Ptr" && len(e.Args) == 1:
			return ev.eval(e.Args[0], want, format)
		case pkg.Name == "time" && f.Sel.Name == "Unix" && len(e.Args) == 2:
			return ev.unix(e, format)
		case pkg.Name == ev.p.Name && len(e.Args) == 1:
			if tn, ok := ev.p.Types.Scope().Lookup(f.Sel.Name).(*types.TypeName); ok {
				return ev.eval(e.Args[0], tn.Type(), format)
			}
		}
	case *ast.Ident:
		if tn, ok := types.Universe.Lookup(f.Name).(*types.TypeName); ok && len(e.Args) == 1 {
			return ev.eval(e.Args[0], tn.Type(), format)
		}
	case *ast.ArrayType: // []byte("…"): the example's string as the example wrote it
		if len(e.Args) == 1 {
			return ev.eval(e.Args[0], nil, format)
		}
	case *ast.FuncLit:
		return ev.parsedTime(f)
	}
	return nil, ev.fail(e, "cannot evaluate the call %s", types.ExprString(e.Fun))
}

// parsedTime is `func() time.Time { t, _ := time.Parse(layout, "…"); return t }()`: the
// example's own text, which is already in the field's wire format (RFC 3339 for nearly
// all; the layout says otherwise for dates and RFC 1123 fields).
func (ev *evaluator) parsedTime(f *ast.FuncLit) (*node, error) {
	var out *node
	var err error
	ast.Inspect(f.Body, func(n ast.Node) bool {
		ce, ok := n.(*ast.CallExpr)
		if !ok || out != nil || err != nil {
			return out == nil && err == nil
		}
		if sel, ok := ce.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parse" && len(ce.Args) == 2 {
			lit, ok := ce.Args[1].(*ast.BasicLit)
			if !ok {
				err = ev.fail(ce, "time.Parse of a value that is not a literal")
				return false
			}
			out, err = ev.basic(lit)
			return false
		}
		return true
	})
	if out == nil && err == nil {
		err = ev.fail(f, "a function literal that is not a time.Parse")
	}
	return out, err
}

// unix is time.Unix(sec, nsec): seconds on the wire for a unix-time field, else RFC 3339.
func (ev *evaluator) unix(e *ast.CallExpr, format string) (*node, error) {
	var parts [2]int64
	for i, a := range e.Args {
		n, err := ev.eval(a, nil, "")
		if err != nil {
			return nil, err
		}
		num, ok := n.val.(json.Number)
		if !ok {
			return nil, ev.fail(a, "time.Unix of a value that is not a number")
		}
		if parts[i], err = num.Int64(); err != nil {
			return nil, ev.fail(a, "time.Unix: %v", err)
		}
	}
	if format == "unix" {
		return &node{val: json.Number(strconv.FormatInt(parts[0], 10))}, nil
	}
	return &node{val: time.Unix(parts[0], parts[1]).UTC().Format(time.RFC3339Nano)}, nil
}

// composite evaluates a composite literal: an SDK struct to an object by its wire names,
// a slice to an array, a map to an object.
func (ev *evaluator) composite(e *ast.CompositeLit, want types.Type) (*node, error) {
	t := want
	if e.Type != nil {
		var err error
		if t, err = ev.typeOf(e.Type); err != nil {
			return nil, err
		}
	}
	if t == nil {
		return nil, ev.fail(e, "a literal of unknown type")
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		named, ok := t.(*types.Named)
		if !ok {
			return nil, ev.fail(e, "a literal of an unnamed struct")
		}
		return ev.structLit(e, named, u)
	case *types.Slice:
		out := &node{isArr: true, arr: []*node{}}
		for _, el := range e.Elts {
			n, err := ev.eval(el, u.Elem(), "")
			if err != nil {
				return nil, err
			}
			if n != nil {
				out.arr = append(out.arr, n)
			}
		}
		return out, nil
	case *types.Map:
		out := object()
		for _, el := range e.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return nil, ev.fail(el, "a map element without a key")
			}
			k, err := ev.eval(kv.Key, nil, "")
			if err != nil {
				return nil, err
			}
			key, ok := k.val.(string)
			if !ok {
				return nil, ev.fail(kv.Key, "a map key that is not a string")
			}
			v, err := ev.eval(kv.Value, u.Elem(), "")
			if err != nil {
				return nil, err
			}
			if v != nil {
				out.obj[key] = v
			}
		}
		return out, nil
	}
	return nil, ev.fail(e, "a literal of type %s", t)
}

// structLit evaluates an SDK struct: each field by its JSON name, an additional-properties
// map's entries as the object's own, a union variant with its discriminator. A response
// envelope (XxxClientCreateResponse{Model: …}) is its embedded model.
func (ev *evaluator) structLit(e *ast.CompositeLit, named *types.Named, st *types.Struct) (*node, error) {
	name := named.Obj().Name()
	out := object()
	for _, el := range e.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return nil, ev.fail(el, "an element of %s without a field name", name)
		}
		id, ok := kv.Key.(*ast.Ident)
		if !ok {
			return nil, ev.fail(kv.Key, "a field name of %s that is not an identifier", name)
		}
		var field *types.Var
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Name() == id.Name {
				field = st.Field(i)
			}
		}
		if field == nil {
			return nil, ev.fail(kv, "%s has no field %s", name, id.Name)
		}
		wire, ok := ev.p.Wire(name, id.Name)
		if !ok {
			if field.Embedded() && len(e.Elts) >= 1 {
				return ev.eval(kv.Value, field.Type(), "")
			}
			return nil, ev.fail(kv, "%s.%s has no wire name in models_serde.go", name, id.Name)
		}
		v, err := ev.eval(kv.Value, field.Type(), wire.Format)
		if err != nil {
			return nil, err
		}
		switch {
		case v == nil:
		case wire.Additional:
			if !v.isObj() {
				return nil, ev.fail(kv, "%s.%s: additional properties that are not an object", name, id.Name)
			}
			for k, x := range v.obj {
				out.obj[k] = x
			}
		default:
			v.readOnly = wire.ReadOnly
			if ev.secret != nil {
				v.secret = ev.secret(name, id.Name)
			}
			out.obj[wire.JSON] = v
		}
	}
	if prop, value, ok := ev.p.Discriminator(name); ok {
		out.obj[prop] = &node{val: value}
	}
	return out, nil
}

// typeOf resolves a type expression of the example file: the package's types, Go's
// predeclared ones, pointers, slices, maps and interface{}.
func (ev *evaluator) typeOf(e ast.Expr) (types.Type, error) {
	switch e := e.(type) {
	case *ast.Ident:
		if tn, ok := types.Universe.Lookup(e.Name).(*types.TypeName); ok {
			return tn.Type(), nil
		}
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok && pkg.Name == ev.p.Name {
			if tn, ok := ev.p.Types.Scope().Lookup(e.Sel.Name).(*types.TypeName); ok {
				return tn.Type(), nil
			}
		} else if ok {
			// A type of a package the SDK's package imports: []*time.Time{…} of schedule times.
			for _, imp := range ev.p.Types.Imports() {
				if imp.Name() == pkg.Name {
					if tn, ok := imp.Scope().Lookup(e.Sel.Name).(*types.TypeName); ok {
						return tn.Type(), nil
					}
				}
			}
		}
	case *ast.StarExpr:
		t, err := ev.typeOf(e.X)
		if err != nil {
			return nil, err
		}
		return types.NewPointer(t), nil
	case *ast.ArrayType:
		if e.Len == nil {
			t, err := ev.typeOf(e.Elt)
			if err != nil {
				return nil, err
			}
			return types.NewSlice(t), nil
		}
	case *ast.MapType:
		k, err := ev.typeOf(e.Key)
		if err != nil {
			return nil, err
		}
		v, err := ev.typeOf(e.Value)
		if err != nil {
			return nil, err
		}
		return types.NewMap(k, v), nil
	case *ast.InterfaceType:
		return types.NewInterfaceType(nil, nil), nil
	}
	return nil, ev.fail(e, "unknown type %s", types.ExprString(e))
}
