package sdk

import (
	"fmt"
	"go/types"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// Read builds the model of one configured kind from its loaded package.
func Read(p *Package, file *config.File, k config.Kind) (*model.Kind, error) {
	bad := func(format string, args ...any) error {
		return &KindError{Kind: k.Key(), Problem: fmt.Sprintf(format, args...)}
	}
	ops, err := p.clientOps(k.Client)
	if err != nil {
		return nil, bad("%v", err)
	}
	if m := k.MoreClients; m != nil {
		// Further clients serving the resource (config: moreClients): only their
		// operations on the resource's own path or its collection count (classify).
		for _, c := range m.Clients {
			more, err := p.clientOps(c)
			if err != nil {
				return nil, bad("moreClients: %v", err)
			}
			for i := range more {
				more[i].client = c
			}
			ops = append(ops, more...)
		}
	}
	for i := range ops {
		for param, v := range k.PathParams {
			ops[i].path = strings.ReplaceAll(ops[i].path, "{"+param+"}", v)
		}
	}
	get := findGet(ops, k.Get)
	if get == nil {
		return nil, bad("%s has no Get operation (name it with get:)", k.Client)
	}
	for param := range k.PathParams {
		if !strings.Contains(p.rawPath(k.Client, get.method), "{"+param+"}") {
			return nil, bad("pathParams: %s is not a parameter of %s", param, get.path)
		}
	}
	ap, err := parsePath(get.path)
	if err != nil {
		return nil, bad("%v", err)
	}
	root := p.localNamed(get.response)
	if root == nil {
		return nil, bad("%s.%s returns no model type", k.Client, get.method)
	}
	self := ap.segments[len(ap.segments)-1]
	mk := &model.Kind{
		Kind:      k.Kind,
		Group:     model.Group{Name: k.Group, ASO: k.Group + ".azure.com", Aztenant: file.Group(k.Group)},
		Module:    model.Module{Path: p.ModulePath, Version: p.ModuleVersion, Package: p.Name},
		Client:    k.Client,
		Existing:  k.Existing,
		ARMType:   ap.armType,
		Scope:     ap.scope,
		Path:      get.path,
		Parents:   ap.segments[:len(ap.segments)-1],
		Owner:     scopeOwner(ap.scope),
		NameParam: self.NameParam, FixedName: self.FixedName,
		APIVersion: get.apiVersion,
		Resource:   root.Obj().Name(),
	}
	if n := k.Name; n != nil {
		mk.Name = &model.NameRule{MinLength: max(n.MinLength, 1), MaxLength: n.MaxLength, Pattern: n.Pattern,
			MetadataName: n.MetadataName, Doc: strings.Join(strings.Fields(n.Doc), " "), UUID: n.UUID, Flag: model.Flag{Source: "config", Reason: n.Because}}
		if n.UUID {
			mk.Name.MinLength = 0 // a derived GUID: spec.azureName may be left out, and is never ""
		}
	}
	if x := k.Extension; x != nil {
		mk.Extension = &model.ExtensionFlag{Flag: model.Flag{Source: "config", Reason: x.Because}}
		for _, o := range x.Owners {
			g, kind, _ := strings.Cut(o, "/")
			mk.Extension.Owners = append(mk.Extension.Owners, model.OwnerKind{
				Group: model.Group{Name: g, ASO: g + ".azure.com", Aztenant: file.Group(g)}, Kind: kind})
		}
	}
	if sp := k.Spec; sp != nil {
		mk.SpecMarkers = &model.MarkersFlag{Markers: sp.Markers, Flag: model.Flag{Source: "config", Reason: sp.Because}}
	}
	mk.OwnerMessage = k.OwnerMessage
	mk.Doc = strings.Join(strings.Fields(k.Doc), " ")
	mk.LocationMessage = k.LocationMessage
	if e := k.Exports; e != nil {
		mk.ConfigMapExports = exportsFlag(e.ConfigMaps, e.Because)
		mk.SecretExports = exportsFlag(e.Secrets, e.Because)
	}
	if s := k.Status; s != nil {
		mk.StatusFields = &model.StatusFieldsFlag{Flag: model.Flag{Source: "config", Reason: s.Because}}
		for _, f := range s.Fields {
			mk.StatusFields.Fields = append(mk.StatusFields.Fields, model.StatusField{Name: f.Name, GoName: f.GoName, Path: f.Path, Doc: f.Doc})
		}
	}
	if o := k.Object; o != nil {
		mk.ObjectMarkers = &model.MarkersFlag{Markers: o.Markers, Flag: model.Flag{Source: "config", Reason: o.Because}}
	}
	if w := k.WithParent; w != nil {
		mk.WithParent = &model.Flag{Source: "config", Reason: w.Because}
	}
	if len(mk.Parents) == 0 {
		mk.Parents = nil
	}
	for i := len(mk.Parents) - 1; i >= 0; i-- {
		if mk.Parents[i].NameParam != "" {
			mk.Owner = mk.Parents[i].Type
			break
		}
	}

	g := newGraph(p, mk.Resource)
	mk.NameValues = p.nameValues(g, k.Client, get.method, self.NameParam)
	if err := g.resolveOverrides(root, k.Fields); err != nil {
		return nil, bad("%v", err)
	}
	g.enqueue(root)
	versions := map[string]bool{}
	for _, op := range ops {
		mo := classify(op, get.path, ap)
		isGet := op.method == get.method && op.client == ""
		if mo.Verb == model.VerbOther && !isGet && !related(op.path, get.path) {
			continue
		}
		versions[op.apiVersion] = true
		g.addBodies(&mo, op)
		switch {
		case isGet:
			mk.Get = &mo
		case mo.Verb == model.VerbCreate && mk.Create == nil:
			mk.Create = &mo
		case mo.Verb == model.VerbUpdate && mk.Update == nil:
			mk.Update = &mo
		case mo.Verb == model.VerbUpdateTags && mk.UpdateTags == nil:
			mk.UpdateTags = &mo
		case mo.Verb == model.VerbDelete && mk.Delete == nil:
			mk.Delete = &mo
		case mo.Verb == model.VerbList:
			mk.Lists = append(mk.Lists, mo)
		case mo.Verb == model.VerbAction:
			mk.Actions = append(mk.Actions, mo)
		default:
			mo.Verb = model.VerbOther
			mk.Other = append(mk.Other, mo)
		}
	}
	mk.Get.Verb = model.VerbGet
	switch {
	case mk.WithParent != nil && mk.Delete != nil:
		return nil, bad("withParent: Azure has a DELETE for it (%s)", mk.Delete.Method)
	case mk.WithParent != nil && mk.FixedName != "":
		return nil, bad("withParent: its name is fixed (%s): a singleton without DELETE is made with its parent already", mk.FixedName)
	}
	for v := range versions {
		mk.APIVersions = append(mk.APIVersions, v)
	}
	sort.Strings(mk.APIVersions)
	g.drain()
	for path, o := range g.overrides {
		if !o.used {
			return nil, bad("fields: %s (%s) is not a field the reader expands", o.path, path)
		}
	}
	mk.Types = g.types
	if rt := mk.Types[mk.Resource]; rt != nil {
		for _, f := range rt.Fields {
			if f.JSON == "properties" && f.Type.Kind == model.KindNamed {
				mk.Properties = f.Type.Name
			}
		}
	}
	mk.Cuts = g.cuts
	sort.Slice(mk.Cuts, func(i, j int) bool { return mk.Cuts[i].Field < mk.Cuts[j].Field })
	mk.Cycles = findCycles(mk)
	mk.DerivedKind = derivedKind(mk.ARMType)
	for u := range g.unresolved {
		mk.Unresolved = append(mk.Unresolved, u)
	}
	sort.Strings(mk.Unresolved)
	return mk, nil
}

// findGet picks the resource's read: the configured method, the method named Get, or
// the plain GET of the shortest path.
func findGet(ops []rawOp, method string) *rawOp {
	var gets []*rawOp
	for i := range ops {
		op := &ops[i]
		if method != "" {
			if op.method == method {
				return op
			}
			continue
		}
		if op.httpMethod != "GET" || op.pageable || op.longRunning {
			continue
		}
		if op.method == "Get" {
			return op
		}
		if strings.HasSuffix(op.path, "}") {
			gets = append(gets, op)
		}
	}
	// Several GETs of one item (GetProperties, GetCustomerInitiatedMigration): the
	// resource is the shortest path; the others read its children.
	sort.SliceStable(gets, func(i, j int) bool { return len(gets[i].path) < len(gets[j].path) })
	if len(gets) == 1 || (len(gets) > 1 && strings.Count(gets[0].path, "/") < strings.Count(gets[1].path, "/")) {
		return gets[0]
	}
	return nil
}

// rawPath is the SDK's own template of a method, before pathParams apply.
func (p *Package) rawPath(client, method string) string {
	ops, _ := p.clientOps(client)
	for _, op := range ops {
		if op.method == method {
			return op.path
		}
	}
	return ""
}

// addBodies adds an operation's request, response and item types to the graph.
func (g *graph) addBodies(mo *model.Operation, op rawOp) {
	where := "operation " + op.method
	for _, t := range []types.Type{op.request, op.response, op.item} {
		if n, ok := t.(*types.Named); ok && n.Obj().Name() != g.root {
			g.bodies[n.Obj().Name()] = true
		}
	}
	if op.request != nil {
		r := g.ref(op.request, where+" request")
		mo.Request = &r
	}
	if op.response != nil {
		r := g.ref(op.response, where+" response")
		mo.Response = &r
	}
	if op.item != nil {
		r := g.ref(op.item, where+" item")
		mo.Item = &r
	}
}

// classify places one raw operation against the resource's path.
func classify(op rawOp, resourcePath string, ap armPath) model.Operation {
	mo := model.Operation{
		Method: op.method, Client: op.client, HTTPMethod: op.httpMethod, Path: op.path, APIVersion: op.apiVersion,
		StatusCodes: op.statusCodes, LongRunning: op.longRunning, FinalStateVia: op.finalStateVia,
		Pageable: op.pageable, RequestOptional: op.requestOptional,
		Name: strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(op.method, "Begin"), "New"), "Pager"),
	}
	for _, m := range pathParam.FindAllStringSubmatch(op.path, -1) {
		mo.PathParams = append(mo.PathParams, m[1])
	}
	lp, lr := strings.ToLower(op.path), strings.ToLower(resourcePath)
	collection := lr[:strings.LastIndex(lr, "/")]
	switch {
	case lp == lr && op.httpMethod == "GET":
		mo.Verb = model.VerbGet
	case lp == lr && op.httpMethod == "PUT":
		mo.Verb = model.VerbCreate
	case lp == lr && op.httpMethod == "PATCH":
		mo.Verb = model.VerbUpdate
		if op.request != nil && tagsOnly(op.request) {
			mo.Verb = model.VerbUpdateTags
		}
	case lp == lr && op.httpMethod == "DELETE":
		mo.Verb = model.VerbDelete
	case op.httpMethod == "POST" && strings.HasPrefix(lp, lr+"/") && !strings.Contains(lp[len(lr)+1:], "/"):
		mo.Verb = model.VerbAction
		mo.Name = op.path[len(resourcePath)+1:]
	case op.httpMethod == "GET" && lp == collection:
		mo.Verb = model.VerbList
		mo.ListScope = "parent"
		if len(ap.segments) == 1 {
			mo.ListScope = string(ap.scope)
		}
	case op.httpMethod == "GET" && len(ap.segments) == 1 && strings.HasSuffix(lp, "/providers/"+strings.ToLower(ap.armType)):
		// The same collection at a wider scope: ListAll, ListBySubscription.
		mo.Verb = model.VerbList
		prefix := lp[:len(lp)-len("/providers/"+ap.armType)]
		switch {
		case prefix == "":
			mo.ListScope = string(model.ScopeTenant)
		case isParamChain(prefix, "subscriptions"):
			mo.ListScope = string(model.ScopeSubscription)
		case isParamChain(prefix, "subscriptions", "resourcegroups"):
			mo.ListScope = string(model.ScopeResourceGroup)
		default:
			// Nested providers: the assignments on one resource.
			mo.ListScope = "resource"
		}
	case op.httpMethod == "GET" && ap.armType == "Microsoft.Resources/resourceGroups" && lp == "/subscriptions/{subscriptionid}/resourcegroups":
		mo.Verb = model.VerbList
		mo.ListScope = string(model.ScopeSubscription)
	default:
		mo.Verb = model.VerbOther
	}
	return mo
}

// related: an operation at the resource's path or its collection's, or under the
// resource's path without naming a child (throughputSettings/default, usages). A client
// that serves several types (cosmos's SQLResourcesClient) or also its children's
// (a queue's authorizationRules/{name}) has operations of other kinds, not this one's.
func related(path, resourcePath string) bool {
	lp, lr := strings.ToLower(path), strings.ToLower(resourcePath)
	collection := lr[:strings.LastIndex(lr, "/")]
	return lp == collection || lp == lr || (strings.HasPrefix(lp, lr+"/") && !strings.Contains(lp[len(lr):], "{"))
}

// tagsOnly: a PATCH body that carries nothing but tags (TagsObject).
func tagsOnly(t types.Type) bool {
	st, ok := t.Underlying().(*types.Struct)
	return ok && st.NumFields() == 1 && st.Field(0).Name() == "Tags"
}

// resolveOverrides turns the config's JSON paths into Go fields, walking the Go types by
// the JSON names the SDK's serde code uses.
func (g *graph) resolveOverrides(root *types.Named, fields map[string]config.FieldOverride) error {
	for path, o := range fields {
		t := root
		steps := strings.Split(path, ".")
		// A path may start at a named type instead of the resource (ComponentPurgeBody.key),
		// for bodies of actions that no path from the resource reaches.
		if n, ok := g.p.Types.Scope().Lookup(steps[0]).(*types.TypeName); ok && len(steps) > 1 {
			if named, ok := n.Type().(*types.Named); ok {
				t, steps = named, steps[1:]
			}
		}
		var owner, goField string
		for _, name := range steps {
			if t == nil {
				return &KindError{Kind: root.Obj().Name(), Problem: "fields: " + path + ": no struct at " + name}
			}
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				return &KindError{Kind: root.Obj().Name(), Problem: "fields: " + path + ": not a struct at " + name}
			}
			owner, goField = t.Obj().Name(), ""
			for f, sf := range g.p.serde[owner] {
				if sf.JSON == name {
					goField = f
				}
			}
			if goField == "" {
				return &KindError{Kind: root.Obj().Name(), Problem: "fields: " + path + ": " + owner + " has no JSON field " + name}
			}
			t = nil
			for j := 0; j < st.NumFields(); j++ {
				if st.Field(j).Name() == goField {
					t = elemNamed(st.Field(j).Type())
				}
			}
		}
		g.overrides[owner+"."+goField] = fieldOverride{path: path, skip: o.Skip, idOnly: o.IDOnly, secret: o.Secret,
			reference: o.Reference, rename: o.Rename, openEnum: o.OpenEnum, names: o.Names, subscription: o.Subscription, answered: o.Answered, markers: o.Markers,
			doc: o.Doc, optional: o.Optional, required: o.Required, def: o.Default, status: o.Status, goName: o.GoName, goType: o.GoType, stringMap: o.StringMap,
			listMapKey: o.ListMapKey, listType: o.ListType, identityReference: o.IdentityReference, fromConfig: o.FromConfig, referenceType: o.ReferenceType, because: o.Because}
	}
	return nil
}

// findCycles reports the back edges of a depth-first walk from the resource over the
// expanded fields (cut and skipped fields are not edges): cutting each one leaves the
// graph without loops.
func findCycles(k *model.Kind) []model.Cycle {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	type step struct{ typ, edge string }
	var stack []step
	var cycles []model.Cycle
	var visit func(name string)
	visit = func(name string) {
		color[name] = grey
		t := k.Types[name]
		var next []step
		if t != nil {
			for _, f := range t.Fields {
				if f.Skip != nil || f.IDOnly != nil {
					continue
				}
				if n := namedIn(f.Type); n != "" {
					next = append(next, step{n, name + "." + f.JSON})
				}
			}
			if t.Union != nil {
				if t.Union.Base != "" {
					next = append(next, step{t.Union.Base, name + ".(base)"})
				}
				for _, v := range t.Union.Variants {
					next = append(next, step{v.Type, name + ".(" + v.Value + ")"})
				}
			}
		}
		for _, s := range next {
			switch color[s.typ] {
			case white:
				stack = append(stack, s)
				visit(s.typ)
				stack = stack[:len(stack)-1]
			case grey:
				var path []string
				for i := len(stack) - 1; i >= 0; i-- {
					path = append([]string{stack[i].edge}, path...)
					if strings.HasPrefix(stack[i].edge, s.typ+".") {
						break
					}
				}
				if s.typ == name {
					path = nil
				}
				path = append(path, s.edge)
				cycles = append(cycles, model.Cycle{Edge: s.edge, To: s.typ, Path: path})
			}
		}
		color[name] = black
	}
	visit(k.Resource)
	var rest []string
	for name := range k.Types {
		rest = append(rest, name)
	}
	sort.Strings(rest)
	for _, name := range rest {
		if color[name] == white {
			visit(name)
		}
	}
	return cycles
}

func namedIn(r model.TypeRef) string {
	for r.Kind == model.KindSlice || r.Kind == model.KindMap {
		r = *r.Elem
	}
	if r.Kind == model.KindNamed {
		return r.Name
	}
	return ""
}

// nameValues lists the values of an enum-typed name parameter of the Get method.
func (p *Package) nameValues(g *graph, client, method, param string) []string {
	named, _ := p.Types.Scope().Lookup(client).(*types.TypeName)
	if named == nil || param == "" {
		return nil
	}
	sel := types.NewMethodSet(types.NewPointer(named.Type())).Lookup(p.Types, method)
	if sel == nil {
		return nil
	}
	params := sel.Obj().Type().(*types.Signature).Params()
	for i := 0; i < params.Len(); i++ {
		v := params.At(i)
		n, ok := v.Type().(*types.Named)
		if v.Name() != param || !ok || p.funcs["Possible"+n.Obj().Name()+"Values"] == nil {
			continue
		}
		var out []string
		for _, e := range g.enum(n.Obj().Name(), model.KindString).Values {
			out = append(out, e.Value)
		}
		return out
	}
	return nil
}

// exportsFlag is one set of the config's exports in the model, nil for none.
func exportsFlag(set *config.ExportSet, because string) *model.ExportsFlag {
	if set == nil {
		return nil
	}
	x := &model.ExportsFlag{Doc: set.Doc, Flag: model.Flag{Source: "config", Reason: because}}
	for _, c := range set.Keys {
		x.Keys = append(x.Keys, model.Export{Name: c.Name, GoName: c.GoName, Status: c.Status, Doc: c.Doc})
	}
	return x
}
