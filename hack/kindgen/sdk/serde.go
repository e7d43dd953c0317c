package sdk

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// serdeField is what models_serde.go says about one struct field.
type serdeField struct {
	JSON string
	// Format is the wire format of times and bytes, from the helper the SDK calls.
	Format string
	// Marshal and Unmarshal say which of the two methods name the field.
	Marshal, Unmarshal bool
	// Additional: the field is a map whose entries are written as the object's own
	// properties (additionalProperties in the spec).
	Additional bool
}

// discriminator is the constant a union variant's MarshalJSON writes into the object.
type discriminator struct {
	JSON  string
	Value string
}

// readMarshal reads `populate(objectMap, "json", v.Field)` calls and discriminator
// assignments `objectMap["type"] = SomeConst` of a MarshalJSON method.
func (p *Package) readMarshal(recv string, fn *ast.FuncDecl) {
	if fn.Body == nil {
		return
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if field := selectorField(n.X); field != "" {
				sf := p.serdeOf(recv, field)
				sf.Additional, sf.Marshal = true, true
				p.serde[recv][field] = sf
			}
		case *ast.CallExpr:
			name := calleeName(n.Fun)
			if !strings.HasPrefix(name, "populate") || len(n.Args) < 3 {
				return true
			}
			json, ok := stringLit(n.Args[1])
			field := selectorField(n.Args[2])
			if !ok || field == "" {
				return true
			}
			sf := p.serdeOf(recv, field)
			sf.JSON, sf.Marshal = json, true
			if f := formatOf(name, n); f != "" {
				sf.Format = f
			}
			p.serde[recv][field] = sf
		case *ast.AssignStmt:
			if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
				return true
			}
			idx, ok := n.Lhs[0].(*ast.IndexExpr)
			if !ok {
				return true
			}
			key, ok := stringLit(idx.Index)
			if !ok {
				return true
			}
			if v, ok := p.constString(n.Rhs[0]); ok {
				p.discriminators[recv] = discriminator{JSON: key, Value: v}
			}
		}
		return true
	})
}

// readUnmarshal reads the `case "json": err = unpopulate(val, "Field", &v.Field)` clauses
// of an UnmarshalJSON method (also polymorphic fields, decoded by unmarshal…Classification,
// and byte arrays, decoded by runtime.DecodeByteArray).
func (p *Package) readUnmarshal(recv string, fn *ast.FuncDecl) {
	if fn.Body == nil {
		return
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || len(cc.List) != 1 {
			return true
		}
		json, ok := stringLit(cc.List[0])
		if !ok {
			return true
		}
		field, helper := "", ""
		var call *ast.CallExpr
		for _, st := range cc.Body {
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if field == "" {
						field = selectorField(n)
					}
				case *ast.CallExpr:
					if helper == "" {
						if name := calleeName(n.Fun); name != "delete" && name != "string" {
							helper, call = name, n
						}
					}
				}
				return true
			})
		}
		if field == "" {
			return false
		}
		sf := p.serdeOf(recv, field)
		sf.JSON, sf.Unmarshal = json, true
		if f := formatOf(helper, call); f != "" {
			sf.Format = f
		}
		p.serde[recv][field] = sf
		return false
	})
}

func (p *Package) serdeOf(recv, field string) serdeField {
	if p.serde[recv] == nil {
		p.serde[recv] = map[string]serdeField{}
	}
	return p.serde[recv][field]
}

// formatOf names the wire format a (un)populate helper implies.
func formatOf(helper string, call *ast.CallExpr) string {
	h := strings.ToLower(helper)
	switch {
	case strings.Contains(h, "rfc3339"):
		return "rfc3339"
	case strings.Contains(h, "rfc1123"):
		return "rfc1123"
	case strings.Contains(h, "unix"):
		return "unix"
	case strings.Contains(h, "datetype"), strings.HasSuffix(h, "date"):
		return "date"
	case strings.Contains(h, "bytearray"):
		f := "base64"
		if call != nil {
			ast.Inspect(call, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "Base64URLFormat" {
					f = "base64url"
				}
				return true
			})
		}
		return f
	}
	return ""
}

// calleeName is the called function's name: populate, runtime.DecodeByteArray → DecodeByteArray.
func calleeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr: // generic instantiation
		return calleeName(e.X)
	}
	return ""
}

// selectorField returns Field of `v.Field` or `&v.Field`, where v is a plain identifier.
func selectorField(e ast.Expr) string {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if _, ok := s.X.(*ast.Ident); !ok {
		return ""
	}
	return s.Sel.Name
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// constString resolves a string literal, a package constant, or a conversion of either
// (string(X), to.Ptr(X)) to its value.
func (p *Package) constString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return stringLit(e)
	case *ast.Ident:
		if c, ok := p.Types.Scope().Lookup(e.Name).(*types.Const); ok && c.Val().Kind() == constant.String {
			return constant.StringVal(c.Val()), true
		}
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return p.constString(e.Args[0])
		}
	case *ast.ParenExpr:
		return p.constString(e.X)
	}
	return "", false
}
