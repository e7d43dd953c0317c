package sdk

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// graph turns the package's Go types into the model's type table, expanding each named
// type reachable from the roots once.
type graph struct {
	p     *Package
	root  string
	types map[string]*model.Type
	// overrides by "GoType.GoField", resolved from the config's JSON paths.
	overrides  map[string]fieldOverride
	queue      []*types.Named
	unresolved map[string]bool
	// bodies are the top-level body types of operations other than the resource's own.
	bodies map[string]bool
	cuts   []model.Cut
}

// fieldOverride is a config override resolved to a Go field.
type fieldOverride struct {
	path string
	// Skip, IDOnly, Secret, Reference, Rename as in config.FieldOverride.
	skip      bool
	idOnly    *bool
	secret    *bool
	reference *bool
	rename    string
	openEnum  bool
	// names and subscription as config.FieldOverride's Names and Subscription.
	names, subscription string
	// answered as config.FieldOverride's Answered.
	answered *config.Answered
	markers  []string
	// doc, optional and def as config.FieldOverride's Doc, Optional and Default.
	doc      string
	optional bool
	def      string
	// required as config.FieldOverride's Required.
	required bool
	// status, goName, goType and stringMap as config.FieldOverride's.
	status         bool
	goName, goType string
	stringMap      bool
	listMapKey     string
	// listType and identityReference as config.FieldOverride's.
	listType, identityReference string
	fromConfig                  *config.FromConfig
	referenceType               string
	because                     string
	used                        bool
}

func newGraph(p *Package, root string) *graph {
	return &graph{p: p, root: root, types: map[string]*model.Type{}, overrides: map[string]fieldOverride{},
		unresolved: map[string]bool{}, bodies: map[string]bool{}}
}

func (g *graph) problem(format string, args ...any) {
	g.unresolved[fmt.Sprintf(format, args...)] = true
}

// ref converts a Go type to a model reference, queueing named types for expansion.
func (g *graph) ref(t types.Type, where string) model.TypeRef {
	t = types.Unalias(deref(t))
	switch t := t.(type) {
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			return model.TypeRef{Kind: model.KindTime}
		}
		if obj.Pkg() != g.p.Types {
			if obj.Name() == "ETag" && obj.Pkg().Name() == "azcore" {
				return model.TypeRef{Kind: model.KindString, Name: "ETag"}
			}
			g.problem("%s: type %s.%s from another package", where, obj.Pkg().Name(), obj.Name())
			return model.TypeRef{Kind: model.KindAny, Name: obj.Pkg().Name() + "." + obj.Name()}
		}
		switch u := t.Underlying().(type) {
		case *types.Basic:
			base := basicKind(u)
			if base == "" {
				g.problem("%s: named type %s of %s", where, obj.Name(), u)
				return model.TypeRef{Kind: model.KindAny, Name: obj.Name()}
			}
			if g.p.funcs["Possible"+obj.Name()+"Values"] == nil {
				return model.TypeRef{Kind: base, Name: obj.Name()}
			}
		case *types.Interface:
			if u.Empty() {
				return model.TypeRef{Kind: model.KindAny, Name: obj.Name()}
			}
		}
		g.enqueue(t)
		return model.TypeRef{Kind: model.KindNamed, Name: obj.Name()}
	case *types.Basic:
		if k := basicKind(t); k != "" {
			return model.TypeRef{Kind: k}
		}
		g.problem("%s: basic type %s", where, t)
	case *types.Slice:
		if b, ok := t.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			return model.TypeRef{Kind: model.KindBytes}
		}
		elem := g.ref(t.Elem(), where+"[]")
		return model.TypeRef{Kind: model.KindSlice, Elem: &elem}
	case *types.Map:
		if b, ok := t.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			g.problem("%s: map key %s", where, t.Key())
		}
		elem := g.ref(t.Elem(), where+"{}")
		return model.TypeRef{Kind: model.KindMap, Elem: &elem}
	case *types.Interface:
		if t.Empty() {
			return model.TypeRef{Kind: model.KindAny}
		}
		g.problem("%s: unnamed interface", where)
	default:
		g.problem("%s: type %s", where, t)
	}
	return model.TypeRef{Kind: model.KindAny}
}

func basicKind(b *types.Basic) model.TypeKind {
	switch b.Kind() {
	case types.String:
		return model.KindString
	case types.Bool:
		return model.KindBool
	case types.Int32:
		return model.KindInt32
	case types.Int64, types.Int:
		return model.KindInt64
	case types.Float32:
		return model.KindFloat32
	case types.Float64:
		return model.KindFloat64
	}
	return ""
}

func (g *graph) enqueue(n *types.Named) {
	name := n.Obj().Name()
	if _, ok := g.types[name]; ok {
		return
	}
	g.types[name] = nil // reserved: expanded by drain
	g.queue = append(g.queue, n)
}

// drain expands every queued named type.
func (g *graph) drain() {
	for len(g.queue) > 0 {
		n := g.queue[0]
		g.queue = g.queue[1:]
		g.types[n.Obj().Name()] = g.expand(n)
	}
}

func (g *graph) expand(n *types.Named) *model.Type {
	name := n.Obj().Name()
	t := &model.Type{Name: name, Doc: trimDoc(name, g.p.typeDocs[name])}
	switch u := n.Underlying().(type) {
	case *types.Basic:
		t.Shape = model.ShapeEnum
		t.Enum = g.enum(name, basicKind(u))
	case *types.Interface:
		t.Shape = model.ShapeUnion
		t.Union = g.union(name)
	case *types.Struct:
		t.Shape = model.ShapeStruct
		t.ResourceShaped = resourceShaped(u)
		t.SubResource = g.subResource(name, u)
		for i := 0; i < u.NumFields(); i++ {
			if f := u.Field(i); f.Exported() {
				t.Fields = append(t.Fields, g.field(name, u, f))
			}
		}
	default:
		g.problem("%s: underlying %s", name, u)
	}
	return t
}

func (g *graph) field(owner string, st *types.Struct, f *types.Var) model.Field {
	doc := g.p.fieldDocs[owner][f.Name()]
	mf := model.Field{GoName: f.Name()}
	for {
		switch {
		case strings.HasPrefix(doc, "READ-ONLY;"):
			mf.ReadOnly, doc = true, strings.TrimSpace(strings.TrimPrefix(doc, "READ-ONLY;"))
			continue
		case strings.HasPrefix(doc, "REQUIRED;"):
			mf.Required, doc = true, strings.TrimSpace(strings.TrimPrefix(doc, "REQUIRED;"))
			continue
		case strings.HasPrefix(doc, "OPTIONAL;"):
			doc = strings.TrimSpace(strings.TrimPrefix(doc, "OPTIONAL;"))
			continue
		}
		break
	}
	mf.Doc = strings.TrimSpace(doc)
	sf, ok := g.p.serde[owner][f.Name()]
	switch {
	case ok && sf.Additional:
		mf.AdditionalProperties = true
	case ok && sf.JSON != "":
		mf.JSON, mf.Format = sf.JSON, sf.Format
	default:
		mf.JSON = lowerFirst(f.Name())
		g.problem("%s.%s: no JSON name in the SDK's (un)marshal code", owner, f.Name())
	}
	o, hasOverride := g.overrides[owner+"."+f.Name()]
	if hasOverride {
		o.used = true
		g.overrides[owner+"."+f.Name()] = o
	}
	inner := elemNamed(f.Type())
	idOnly := false
	// A resource that is created on its own (some client PUTs it) embedded in another,
	// its own type included (a public IP's linked public IP), is another resource: keep
	// its ID. Inline parts that look like resources but have no PUT of their own (a
	// subnet's delegations, a NIC's ipConfigurations) stay whole. The pages of lists and
	// other operation bodies hold resources on purpose and are never cut.
	if inner != nil && inner.Obj().Pkg() == g.p.Types && !g.bodies[owner] && g.p.creatable()[inner.Obj().Name()] {
		idOnly = true
		mf.IDOnly = &model.Flag{Source: "sdk", Reason: "embeds " + inner.Obj().Name() + ", a resource created on its own: kept as its ID, as ASO's SubResourceEmbedded"}
		mf.Reference = &model.Flag{Source: "sdk", Reason: "embedded resource " + inner.Obj().Name()}
	}
	if hasOverride && o.idOnly != nil {
		idOnly = *o.idOnly
		mf.IDOnly = nil
		if idOnly {
			mf.IDOnly = &model.Flag{Source: "config", Reason: o.because}
		}
	}
	if hasOverride && o.skip {
		mf.Skip = &model.Flag{Source: "config", Reason: o.because}
	}
	where := owner + "." + mf.JSON
	if idOnly || mf.Skip != nil {
		// Not expanded: name the type without queueing it.
		mf.Type = shallowRef(f.Type(), g.p.Types)
		reason := "skipped by config"
		if mf.Skip == nil {
			reason = mf.IDOnly.Reason
		}
		g.cuts = append(g.cuts, model.Cut{Field: where, Type: typeName(f.Type()), Reason: reason})
	} else {
		mf.Type = g.ref(f.Type(), where)
	}
	if mf.Reference == nil {
		mf.Reference = g.referenceOf(owner, st, f, mf)
	}
	mf.Secret = secretOf(owner, f, mf)
	if hasOverride {
		mf.Rename = o.rename
		if o.openEnum {
			mf.OpenEnum = &model.Flag{Source: "config", Reason: o.because}
		}
		if o.names != "" {
			mf.Names = &model.NameFlag{Means: o.names, Subscription: o.subscription, Flag: model.Flag{Source: "config", Reason: o.because}}
		}
		if len(o.markers) > 0 {
			mf.Markers = &model.MarkersFlag{Markers: o.markers, Flag: model.Flag{Source: "config", Reason: o.because}}
		}
		if o.doc != "" {
			mf.Doc = strings.Join(strings.Fields(o.doc), " ")
		}
		if o.optional {
			mf.Required = false
			mf.Optional = &model.Flag{Source: "config", Reason: o.because}
		}
		if o.required {
			mf.Required = true
			mf.RequiredByConfig = &model.Flag{Source: "config", Reason: o.because}
		}
		mf.Default = o.def
		if o.status {
			mf.Status = &model.Flag{Source: "config", Reason: o.because}
		}
		if o.goName != "" {
			mf.GoName = o.goName
		}
		mf.GoType = o.goType
		if o.stringMap {
			mf.StringMap = &model.Flag{Source: "config", Reason: o.because}
		}
		mf.ListMapKey = o.listMapKey
		mf.ListType = o.listType
		mf.IdentityReference = o.identityReference
		if fc := o.fromConfig; fc != nil {
			mf.FromConfig = &model.FromConfigFlag{Doc: strings.Join(strings.Fields(fc.Doc), " "), Markers: fc.Markers, Flag: model.Flag{Source: "config", Reason: o.because}}
		}
		mf.ReferenceType = o.referenceType
		if a := o.answered; a != nil {
			mf.Answered = &model.AnswerFlag{Normalize: a.Normalize, NotReturned: a.NotReturned, Forced: a.Forced,
				OpenValues: a.OpenValues, OpenSet: a.OpenSet, Flag: model.Flag{Source: "config", Reason: o.because}}
		}
		if o.reference != nil {
			mf.Reference = nil
			if *o.reference {
				mf.Reference = &model.Flag{Source: "config", Reason: o.because}
			}
		}
		if o.secret != nil {
			mf.Secret = nil
			if *o.secret {
				mf.Secret = &model.Flag{Source: "config", Reason: o.because}
			}
		}
	}
	return mf
}

// enum reads the values of PossibleXxxValues in its order, with each constant's doc.
func (g *graph) enum(name string, base model.TypeKind) *model.Enum {
	e := &model.Enum{Base: base}
	fn := g.p.funcs["Possible"+name+"Values"]
	if fn == nil || fn.Body == nil {
		g.problem("%s: no Possible%sValues", name, name)
		return e
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, el := range lit.Elts {
			id, ok := el.(*ast.Ident)
			if !ok {
				continue
			}
			c, ok := g.p.Types.Scope().Lookup(id.Name).(*types.Const)
			if !ok {
				g.problem("%s: value %s is not a constant", name, id.Name)
				continue
			}
			v := c.Val().ExactString()
			if c.Val().Kind() == constant.String {
				v = constant.StringVal(c.Val())
			}
			e.Values = append(e.Values, model.EnumValue{GoName: id.Name, Value: v, Doc: trimDoc(id.Name, g.p.constDocs[id.Name])})
		}
		return false
	})
	return e
}

// union reads polymorphic_helpers.go's unmarshal…Classification: the discriminator
// property and the variant for each value.
func (g *graph) union(name string) *model.Union {
	u := &model.Union{}
	fn := g.p.funcs["unmarshal"+name]
	if fn == nil || fn.Body == nil {
		g.problem("%s: polymorphic type without unmarshal%s", name, name)
		return u
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok {
			return true
		}
		if idx, ok := sw.Tag.(*ast.IndexExpr); ok {
			u.Discriminator, _ = stringLit(idx.Index)
		}
		for _, s := range sw.Body.List {
			cc := s.(*ast.CaseClause)
			variant := ""
			ast.Inspect(cc, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok {
					if id, ok := cl.Type.(*ast.Ident); ok {
						variant = id.Name
					}
				}
				return variant == ""
			})
			if variant == "" {
				continue
			}
			if n, ok := g.p.Types.Scope().Lookup(variant).(*types.TypeName); ok {
				g.enqueue(n.Type().(*types.Named))
			}
			if len(cc.List) == 0 {
				u.Base = variant
				continue
			}
			for _, e := range cc.List {
				v, ok := g.p.constString(e)
				if !ok {
					g.problem("%s: discriminator value of %s", name, variant)
				}
				u.Variants = append(u.Variants, model.Variant{Value: v, Type: variant})
			}
		}
		return false
	})
	sort.Slice(u.Variants, func(i, j int) bool { return u.Variants[i].Value < u.Variants[j].Value })
	if u.Discriminator == "" {
		g.problem("%s: no discriminator switch", name)
	}
	return u
}

// resourceShaped: the struct has id, name and type, the envelope of an ARM resource.
func resourceShaped(st *types.Struct) bool {
	has := map[string]bool{}
	for i := 0; i < st.NumFields(); i++ {
		has[st.Field(i).Name()] = true
	}
	return has["ID"] && has["Name"] && has["Type"]
}

// subResource: the struct's only writable field is ID (the SDK's SubResource and its
// look-alikes).
func (g *graph) subResource(name string, st *types.Struct) bool {
	writable := 0
	hasID := false
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if strings.HasPrefix(g.p.fieldDocs[name][f.Name()], "READ-ONLY;") {
			continue
		}
		writable++
		hasID = hasID || f.Name() == "ID"
	}
	return writable == 1 && hasID
}

func elemNamed(t types.Type) *types.Named {
	for {
		t = types.Unalias(deref(t))
		switch u := t.(type) {
		case *types.Slice:
			t = u.Elem()
		case *types.Map:
			t = u.Elem()
		case *types.Named:
			return u
		default:
			return nil
		}
	}
}

// shallowRef names a type without expanding it.
func shallowRef(t types.Type, local *types.Package) model.TypeRef {
	t = types.Unalias(deref(t))
	switch u := t.(type) {
	case *types.Slice:
		e := shallowRef(u.Elem(), local)
		return model.TypeRef{Kind: model.KindSlice, Elem: &e}
	case *types.Map:
		e := shallowRef(u.Elem(), local)
		return model.TypeRef{Kind: model.KindMap, Elem: &e}
	case *types.Named:
		return model.TypeRef{Kind: model.KindNamed, Name: u.Obj().Name()}
	}
	return model.TypeRef{Kind: model.KindAny, Name: t.String()}
}

func typeName(t types.Type) string {
	if n := elemNamed(t); n != nil {
		return n.Obj().Name()
	}
	return types.Unalias(deref(t)).String()
}

// trimDoc drops the "Name - " prefix the SDK puts before type and constant docs.
func trimDoc(name, doc string) string {
	doc = strings.TrimSpace(doc)
	doc = strings.TrimPrefix(doc, name+" - ")
	return doc
}
