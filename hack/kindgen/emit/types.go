package emit

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// goStruct is one Go struct of an API package.
type goStruct struct {
	Name   string
	Doc    string
	Fields []goField
}

// goField is one field of a goStruct.
type goField struct {
	Name, JSON, Type string
	Doc              string
	Markers          []string
	Required         bool
	// identities: ARM's userAssignedIdentities map, held as a list of references.
	identities bool
	// flatPath is the dotted path of Azure's answer a flat status string is read from
	// (api/kinds.yaml, status.fields).
	flatPath string
}

// shape is where ARM nests what the spec flattens: Props are the JSON names that live
// under the object's `properties`, Fields the shapes of nested objects (for a list, of
// each element), by JSON name. A nil shape flattens nothing.
type shape struct {
	Props  []string
	Fields map[string]*shape
	// Secrets are the spec's write-only values, by JSON name, each a Secret key whose
	// value the operator puts in its place.
	Secrets []string
	// IDRefs are the string ARM IDs the spec holds as references: spec JSON name
	// (privateLinkServiceReference) -> ARM's (privateLinkServiceId).
	IDRefs map[string]string
	// Identities are ARM's userAssignedIdentities maps (keyed by the identity's ARM ID,
	// empty objects as values), by JSON name, held in the spec as lists of references.
	Identities []string
	// Renames are the fields the config renames (api/kinds.yaml, rename): spec JSON
	// name (roleType) -> ARM's (type).
	Renames map[string]string
}

func (s *shape) empty() bool {
	return s == nil || (len(s.Props) == 0 && len(s.Fields) == 0 && len(s.IDRefs) == 0 && len(s.Secrets) == 0 && len(s.Identities) == 0 && len(s.Renames) == 0)
}

type mode int

const (
	specMode   mode = iota // writable fields, for the spec
	statusMode             // every field, for the status
)

// types emits the Go types of one kind: the spec's and the status's nested structs,
// prefixed with the kind's name so kinds of a group never collide.
type types struct {
	k       *model.Kind
	prefix  string
	structs []*goStruct
	done    map[string]string // SDK type + mode -> Go name ("" while being built: a cycle)
	shapes  map[string]*shape
	notes   []string
	// needID: the kind has a <Kind>ResourceID type (an embedded resource kept as its ID);
	// hasRefs: a <Kind>Reference (a reference the operator resolves); hasIDRefs: a string
	// ARM ID held as a reference (resolved too); hasIdentities: user-assigned identities
	// held as references (resolved too).
	needID, hasRefs, hasIDRefs, hasIdentities bool
	// writeOnly are the PUT body paths of the spec's write-only values
	// (properties.administratorLoginPassword): never compared, their Secrets watched.
	writeOnly []string
	// children are the SDK types of the kind's child kinds (a network's Subnet): managed
	// through those kinds, so the parent's spec leaves them out, as ASO's does (a parent
	// listing them would fight the children).
	children map[string]bool
	// carried are the body paths of the children left out (properties.subnets): ARM
	// deletes what a PUT leaves out of them, so the adapter declares them
	// (reconcilers.Facts.CarriedOnPut) and the reconciler carries them from the GET.
	carried []string
	// goTypes are the Go names the config gives SDK structs (goType), by SDK type.
	goTypes map[string]string
	// replaced are the status's fields (JSON names, properties flattened) the config's
	// flat status fields take the place of (status.fields: powerState, identity).
	replaced map[string]bool
	// fromConfig are the <name>FromConfig fields beside string fields (api/kinds.yaml,
	// fromConfig), whose ConfigMap values Resolve reads and Desired puts at ARM's path.
	fromConfig []bodyRef
	// handRefs are the references held in a Go type written by hand (referenceType),
	// left out of the generated body: the kind's overlay's Desired puts ARM's value in.
	handRefs []bodyRef
	// deepRefs names fromConfig and referenceType fields below the resource's own
	// fields and its properties, which the emitters do not do.
	deepRefs []string
}

// bodyRef is a spec field of the resource's own (or of its properties) standing for an
// ARM body path: spec JSON name, Go name, the path (properties.principalId).
type bodyRef struct {
	json, goName, path string
}

func newTypes(k *model.Kind) *types {
	g := &types{k: k, prefix: k.Kind, done: map[string]string{}, shapes: map[string]*shape{}, goTypes: map[string]string{}}
	for _, t := range k.Types {
		for _, f := range t.Fields {
			if f.GoType != "" {
				g.goTypes[elemName(f.Type)] = f.GoType
			}
		}
	}
	return g
}

// topLevelOwn are the resource fields the spec or status carries in its own way (owner,
// azureName, location, tags, the common status) or not at all.
var topLevelOwn = map[string]bool{"id": true, "name": true, "type": true, "location": true, "tags": true,
	"etag": true, "systemData": true}

// fieldsOf collects t's fields for mode, with `properties` flattened into them. top is
// true for the resource body itself.
func (g *types) fieldsOf(t *model.Type, m mode, top bool) ([]goField, *shape) {
	var out []goField
	sh := &shape{Fields: map[string]*shape{}, IDRefs: map[string]string{}, Renames: map[string]string{}}
	seen := map[string]bool{}
	add := func(f *model.Field, inProps bool) {
		name := f.JSON
		if f.Rename != "" {
			name = f.Rename
		}
		if seen[name] {
			g.notes = append(g.notes, fmt.Sprintf("%s.%s: name taken by an outer field, left out", t.Name, f.JSON))
			return
		}
		gf, sub, ok := g.field(t, f, m)
		if !ok {
			return
		}
		armName := f.JSON
		armPath := armName
		if inProps {
			armPath = "properties." + armName
		}
		hand := m == specMode && f.ReferenceType != "" && gf.JSON != ""
		if gf.JSON != "" && !hand { // a string ARM ID held as a reference, named for it
			name = gf.JSON
			sh.IDRefs[name] = armName
		}
		if hand {
			// Held in a type written by hand: the overlay's Desired puts ARM's value in.
			name = gf.JSON
			if !top {
				g.deepRefs = append(g.deepRefs, t.Name+"."+f.JSON)
			}
			g.handRefs = append(g.handRefs, bodyRef{json: name, goName: gf.Name, path: armPath})
		}
		if name != armName && !hand && sh.IDRefs[name] == "" {
			sh.Renames[name] = armName
		}
		gf.JSON = name
		seen[name] = true
		out = append(out, gf)
		if m == specMode && f.FromConfig != nil {
			if !top || strings.TrimPrefix(gf.Type, "*") != "string" {
				g.deepRefs = append(g.deepRefs, t.Name+"."+f.JSON)
			}
			doc := f.FromConfig.Doc
			if doc == "" {
				doc = fmt.Sprintf("%sFromConfig reads %s from a ConfigMap key of this namespace instead.", gf.Name, name)
			}
			c := goField{Name: gf.Name + "FromConfig", JSON: name + "FromConfig", Type: "*azurev1alpha1.ConfigMapReference",
				Doc: doc, Markers: withMarkers(nil, f.FromConfig.Markers)}
			seen[c.JSON] = true
			out = append(out, c)
			g.fromConfig = append(g.fromConfig, bodyRef{json: c.JSON, goName: c.Name, path: armPath})
		}
		if gf.identities {
			sh.Identities = append(sh.Identities, name)
		}
		if inProps && !hand {
			// ARM's name: references are put back in place before the body is nested.
			sh.Props = append(sh.Props, armName)
		}
		if !sub.empty() {
			sh.Fields[name] = sub
		}
	}
	var props *model.Field
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.JSON == "properties" && f.Type.Kind == model.KindNamed && g.k.Types[f.Type.Name] != nil && g.k.Types[f.Type.Name].Shape == model.ShapeStruct {
			props = f
			continue
		}
		if top && m == specMode && g.writeOnlyValue(f) {
			g.addSecret(&out, sh, f, false)
			continue
		}
		if g.drop(t, f, m, top) || (top && m == statusMode && g.replaced[f.JSON]) {
			continue
		}
		add(f, false)
	}
	if props != nil && props.Skip == nil && (m == statusMode || !props.ReadOnly) {
		pt := g.k.Types[props.Type.Name]
		for i := range pt.Fields {
			f := &pt.Fields[i]
			if top && m == specMode && g.writeOnlyValue(f) {
				g.addSecret(&out, sh, f, true)
				continue
			}
			if g.drop(pt, f, m, false) || (top && f.JSON == "provisioningState") || (top && m == statusMode && g.replaced[f.JSON]) {
				continue
			}
			if top && m == specMode && g.children[elemName(f.Type)] {
				g.notes = append(g.notes, fmt.Sprintf("%s.%s: a child kind of its own, left out", pt.Name, f.JSON))
				g.carried = append(g.carried, "properties."+f.JSON)
				continue
			}
			add(f, true)
		}
	}
	return out, sh
}

// drop says whether a field stays out of the Go type.
func (g *types) drop(t *model.Type, f *model.Field, m mode, top bool) bool {
	switch {
	case f.Skip != nil, f.AdditionalProperties, f.JSON == "":
		return true
	case m == specMode && f.ReadOnly:
		return true
	case top && topLevelOwn[f.JSON] && (m != statusMode || f.Status == nil):
		// The spec carries them in its own way; one the config reports in the status
		// too (status: true, a resource group's location) is kept there.
		return true
	case !top && t.ResourceShaped && !t.SubResource && (f.JSON == "type" || f.JSON == "etag" || (m == specMode && f.JSON == "id")):
		// An inline part of this resource (a subnet's delegation) is named, not typed.
		return true
	case g.otherRecordType(f.JSON):
		g.notes = append(g.notes, fmt.Sprintf("%s.%s: records of another type than this kind's, left out", t.Name, f.JSON))
		return true
	case m == specMode && f.Secret != nil:
		// Secrets never sit in a spec in clear; those of the resource's own body are
		// Secret references (writeOnlyValue), deeper ones are left out.
		g.notes = append(g.notes, fmt.Sprintf("%s.%s: write-only secret below the resource's own fields, left out", t.Name, f.JSON))
		return true
	}
	return false
}

// recordField matches the record lists of a DNS record set (ARecords, aaaaRecords,
// cnameRecord, soaRecord, ...), one per record type.
var recordField = regexp.MustCompile(`(?i)^(a|aaaa|caa|cname|mx|ns|ptr|soa|srv|txt)records?$`)

// otherRecordType says whether a field holds records of another type than the kind's. One
// SDK model serves every record set of a zone, its type fixed in the URL (pathParams):
// a CAA record kind carries CAA records only, so an MX list in it is a mistake the API
// server can refuse instead of Azure.
func (g *types) otherRecordType(json string) bool {
	rt := g.k.ARMType[strings.LastIndex(g.k.ARMType, "/")+1:]
	zone := strings.TrimSuffix(g.k.ARMType, "/"+rt)
	if !strings.EqualFold(zone, "Microsoft.Network/dnsZones") && !strings.EqualFold(zone, "Microsoft.Network/privateDnsZones") {
		return false
	}
	m := recordField.FindStringSubmatch(json)
	return m != nil && !strings.EqualFold(m[1], rt)
}

// field maps one SDK field to a Go field; ok is false when nothing of it is left.
func (g *types) field(owner *model.Type, f *model.Field, m mode) (goField, *shape, bool) {
	var (
		typ     string
		sub     *shape
		markers []string
		ok      bool
	)
	if m == specMode && isIdentityMap(f) {
		// ARM's userAssignedIdentities: a map keyed by the identity's ARM ID whose values
		// (clientId, principalId) Azure fills in. A list of references, as ASO holds it; the
		// adapter sends the map and compares against it.
		g.hasIdentities = true
		gf := goField{Name: goName(f), Type: "[]azurev1alpha1.UserAssignedIdentityDetails", identities: true,
			Doc: "The user-assigned identities the resource runs as: each by ARM ID (armId) or by an object of this namespace (name), a UserAssignedIdentity unless group and kind say otherwise."}
		if f.IdentityReference == "nameOrArmId" {
			// The config's: {name, armId}, a UserAssignedIdentity of the namespace by name,
			// as a kind written by hand had it (api/kinds.yaml, identityReference).
			gf.Type = "[]azurev1alpha1.UserAssignedIdentityNameDetails"
			gf.Doc = "The user-assigned identities the resource runs as: each by ARM ID (armId) or by the name of a UserAssignedIdentity of this namespace (name)."
		}
		if f.Markers != nil {
			// The config's bounds (MaxItems) on the list of references.
			gf.Markers = withMarkers(nil, f.Markers.Markers)
		}
		return gf, nil, true
	}
	if f.IdentityReference != "" {
		g.notes = append(g.notes, fmt.Sprintf("%s.%s: identityReference on a field that is no identity map, ignored", owner.Name, f.JSON))
	}
	if m == specMode && f.Reference != nil && g.idShaped(f.Type) {
		// An ARM ID of another resource: by ARM ID or by the aztenant object that has one.
		g.hasRefs = true
		typ, ok = g.prefix+"Reference", true
		if f.Type.Kind == model.KindSlice {
			typ = "[]" + typ
		}
	} else if m == specMode && f.Reference != nil && isStringID(f.Type) && f.Rename == "" {
		// A string ARM ID of another resource, as ASO holds it: <name>Reference, by ARM
		// ID or by the aztenant object that has one; or by the config's type written by
		// hand (referenceType), which the overlay turns into ARM's value.
		typ = "azurev1alpha1.ResourceReference"
		if f.ReferenceType != "" {
			typ = f.ReferenceType
		} else {
			g.hasIDRefs = true
		}
		if f.Type.Kind == model.KindSlice {
			typ = "[]" + typ
		}
		// An "id" of its own (a vault's network rule) is its reference, as ASO names it.
		// A list of IDs (networkAclBypassResourceIds) is a list of references.
		json, name := "reference", "Reference"
		suffixes, ref := []string{"Id", "ID"}, "Reference"
		if f.Type.Kind == model.KindSlice {
			json, name = "references", "References"
			suffixes, ref = []string{"Ids", "IDs"}, "References"
		}
		base, goBase := f.JSON, goName(f)
		for _, sfx := range suffixes {
			base, goBase = strings.TrimSuffix(base, sfx), strings.TrimSuffix(goBase, sfx)
		}
		if base != "" && !strings.EqualFold(base, "id") && !strings.EqualFold(base, "ids") {
			json, name = base+ref, goBase+ref
		}
		gf := goField{Name: name, JSON: json,
			Doc: strings.TrimSpace(f.Doc + " By ARM ID (armId) or by an aztenant object of this namespace (kind, name)."), Required: f.Required}
		if f.ReferenceType != "" {
			gf.Doc = f.Doc
		}
		if f.Markers != nil {
			gf.Markers = withMarkers(nil, f.Markers.Markers)
		}
		if !gf.Required && f.Type.Kind != model.KindSlice {
			gf.Type = "*" + typ
		} else {
			gf.Type = typ
		}
		return gf, nil, true
	} else if f.StringMap != nil && f.Type.Kind == model.KindNamed {
		// The config's: a map of strings, as Azure takes it (api/kinds.yaml, stringMap).
		typ, ok = "map[string]string", true
	} else if typ, sub, markers, ok = g.typeOf(f.Type, m); !ok {
		return goField{}, nil, false
	}
	if f.OpenEnum != nil {
		var kept []string
		for _, x := range markers {
			if !strings.Contains(x, "validation:Enum=") && !strings.Contains(x, "validation:items:Enum=") {
				kept = append(kept, x)
			}
		}
		markers = kept
	}
	if m == specMode && f.Answered != nil && f.Answered.Forced != nil {
		markers = append(markers, forcedMarker(f))
	}
	if m == specMode && f.Markers != nil {
		markers = withMarkers(markers, f.Markers.Markers)
	}
	if m == specMode && f.Default != "" {
		markers = append([]string{"+kubebuilder:default=" + f.Default}, markers...)
	}
	if m == specMode && f.ListMapKey != "" {
		// The config's: a list of elements keyed by one field (api/kinds.yaml, listMapKey).
		markers = append([]string{"+listType=map", "+listMapKey=" + f.ListMapKey}, markers...)
	}
	if m == specMode && f.ListType == "set" {
		// The config's: a list without duplicates (api/kinds.yaml, listType).
		markers = append([]string{"+listType=set"}, markers...)
	}
	gf := goField{Name: goName(f), Doc: f.Doc, Markers: markers}
	if m == specMode && f.Required {
		gf.Required = true
	}
	gf.Type = typ
	if !gf.Required && isValueScalar(typ) {
		gf.Type = "*" + typ
	}
	if !gf.Required && !strings.HasPrefix(typ, "*") && g.isStruct(typ) {
		gf.Type = "*" + typ
	}
	if f.Reference != nil && m == specMode && !strings.HasSuffix(typ, "Reference") {
		gf.Doc = strings.TrimSpace(gf.Doc + " An ARM ID.")
	}
	return gf, sub, true
}

// writeOnlyValue says whether a field of the resource's own body is a write-only secret
// string (an administrator password), held in the spec as a Secret reference.
func (g *types) writeOnlyValue(f *model.Field) bool {
	return f.Secret != nil && !f.ReadOnly && f.Skip == nil && f.Type.Kind == model.KindString && f.Rename == ""
}

// addSecret adds a write-only value as a Secret reference of the same JSON name, as
// ASO's secret references are.
func (g *types) addSecret(out *[]goField, sh *shape, f *model.Field, inProps bool) {
	gf := goField{Name: goName(f), JSON: f.JSON, Type: "*azurev1alpha1.SecretKeyReference",
		Doc: strings.TrimSpace(f.Doc + " A key of a Secret in this namespace: Azure never returns the value, so it is sent again when the Secret changes, not compared.")}
	if f.Required {
		gf.Required, gf.Type = true, "azurev1alpha1.SecretKeyReference"
	}
	*out = append(*out, gf)
	sh.Secrets = append(sh.Secrets, f.JSON)
	path := f.JSON
	if inProps {
		sh.Props = append(sh.Props, f.JSON)
		path = "properties." + f.JSON
	}
	g.writeOnly = append(g.writeOnly, path)
}

// resolves says whether the kind's spec holds references the operator resolves.
func (g *types) resolves() bool {
	return g.hasRefs || g.hasIDRefs || g.hasIdentities || len(g.writeOnly) > 0
}

// isIdentityMap says whether a field is ARM's identity.userAssignedIdentities: a map of
// objects, keyed by the identities' ARM IDs.
func isIdentityMap(f *model.Field) bool {
	return f.JSON == "userAssignedIdentities" && f.Type.Kind == model.KindMap && f.Type.Elem.Kind == model.KindNamed && f.Rename == ""
}

// isStringID reports whether a reference field is an ARM ID string, or a list of them.
func isStringID(r model.TypeRef) bool {
	if r.Kind == model.KindSlice {
		r = *r.Elem
	}
	return r.Kind == model.KindString
}

func (g *types) isStruct(goType string) bool {
	for _, s := range g.structs {
		if s.Name == goType {
			return true
		}
	}
	return goType == g.prefix+"ResourceID" || goType == g.prefix+"Reference"
}

// idShaped reports whether a reference field's type (or element type) is an object
// holding only an ARM ID: the SDK's SubResource, or an embedded resource kept as its ID.
func (g *types) idShaped(r model.TypeRef) bool {
	if r.Kind == model.KindSlice {
		r = *r.Elem
	}
	if r.Kind != model.KindNamed {
		return false
	}
	t := g.k.Types[r.Name]
	return t == nil || t.SubResource
}

func isValueScalar(t string) bool {
	switch t {
	case "bool", "int32", "int64":
		return true
	}
	return false
}

// typeOf is the Go type of a type reference, with the shape of what it holds and the
// validation markers it needs.
func (g *types) typeOf(r model.TypeRef, m mode) (string, *shape, []string, bool) {
	switch r.Kind {
	case model.KindString, model.KindTime, model.KindBytes:
		return "string", nil, nil, true
	case model.KindBool:
		return "bool", nil, nil, true
	case model.KindInt32:
		return "int32", nil, nil, true
	case model.KindInt64:
		return "int64", nil, nil, true
	case model.KindFloat32, model.KindFloat64, model.KindAny:
		// CRDs discourage floats (they do not round-trip); free-form JSON keeps the number.
		return "*apiextensionsv1.JSON", nil, nil, true
	case model.KindSlice:
		et, sub, em, ok := g.typeOf(*r.Elem, m)
		if !ok {
			return "", nil, nil, false
		}
		var markers []string
		for _, x := range em {
			markers = append(markers, strings.Replace(x, "validation:", "validation:items:", 1))
		}
		return "[]" + strings.TrimPrefix(et, "*"), sub, markers, true
	case model.KindMap:
		et, sub, _, ok := g.typeOf(*r.Elem, m)
		if !ok || !sub.empty() {
			// A map of objects with their own properties has no flattening rule yet.
			return "", nil, nil, false
		}
		return "map[string]" + strings.TrimPrefix(et, "*"), nil, nil, true
	}
	t := g.k.Types[r.Name]
	if t == nil {
		// Not expanded by the reader (an embedded resource kept as its ID).
		g.needID = true
		return g.prefix + "ResourceID", nil, nil, true
	}
	switch t.Shape {
	case model.ShapeEnum:
		base := "string"
		if t.Enum.Base == model.KindInt32 || t.Enum.Base == model.KindInt64 {
			base = string(t.Enum.Base)
		}
		var vals []string
		for _, v := range t.Enum.Values {
			if base != "string" {
				vals = append(vals, v.Value) // a number, unquoted: the schema's type is integer
				continue
			}
			vals = append(vals, markerValue(v.Value))
		}
		if len(vals) == 0 {
			return base, nil, nil, true
		}
		return base, nil, []string{"+kubebuilder:validation:Enum=" + strings.Join(vals, ";")}, true
	case model.ShapeUnion:
		return "*apiextensionsv1.JSON", nil, nil, true
	}
	name, sh, ok := g.structOf(t, m)
	return name, sh, nil, ok
}

var plainValue = regexp.MustCompile(`^[A-Za-z0-9_.\-/]+$`)

func markerValue(v string) string {
	if plainValue.MatchString(v) && !regexp.MustCompile(`^[0-9.\-]+$`).MatchString(v) {
		return v
	}
	return strconv.Quote(v)
}

// structOf emits the Go struct of an SDK struct for mode and returns its name.
func (g *types) structOf(t *model.Type, m mode) (string, *shape, bool) {
	key := fmt.Sprint(t.Name, m)
	if name, ok := g.done[key]; ok {
		if name == "" {
			g.notes = append(g.notes, t.Name+": recursive, left out")
			return "", nil, false
		}
		return name, g.shapes[key], true
	}
	g.done[key] = ""
	name := g.prefix + t.Name
	if n := g.goTypes[t.Name]; n != "" {
		name = n // the config's (api/kinds.yaml, goType)
	}
	if m == statusMode {
		name += "Status"
	}
	s := &goStruct{Name: name, Doc: t.Doc}
	fields, sh := g.fieldsOf(t, m, false)
	if len(fields) == 0 && m == specMode && !t.SubResource {
		delete(g.done, key)
		return "", nil, false
	}
	s.Fields = fields
	g.structs = append(g.structs, s)
	g.done[key], g.shapes[key] = name, sh
	return name, sh, true
}

func goName(f *model.Field) string {
	if f.Rename != "" {
		return strings.ToUpper(f.Rename[:1]) + f.Rename[1:]
	}
	n := f.GoName
	if n == "" {
		n = strings.ToUpper(f.JSON[:1]) + f.JSON[1:]
	}
	return n
}

// wrap formats a doc as comment lines, keeping lines from reading as markers.
// clip cuts a description longer than n at a sentence: the CRD carries
// every description.
func clip(doc string, n int) string {
	if len(doc) <= n {
		return doc
	}
	cut := strings.LastIndex(doc[:n], ". ")
	if cut < n/3 {
		cut = n - 3
	}
	return doc[:cut+1]
}

func wrap(indent, doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if doc == "" {
		return ""
	}
	doc = clip(doc, 600)
	var b strings.Builder
	line := ""
	flush := func() {
		if strings.HasPrefix(line, "+") {
			line = "- " + line
		}
		b.WriteString(indent + "// " + line + "\n")
		line = ""
	}
	for _, w := range strings.Fields(doc) {
		if line != "" && len(line)+1+len(w) > 90 {
			flush()
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		flush()
	}
	return b.String()
}

func (s *goStruct) render(b *strings.Builder) {
	doc := s.Doc
	if doc == "" {
		doc = s.Name + " is part of the resource."
	}
	b.WriteString(wrap("", s.Name+": "+doc))
	fmt.Fprintf(b, "type %s struct {\n", s.Name)
	fields := append([]goField(nil), s.Fields...)
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].JSON < fields[j].JSON })
	for i, f := range fields {
		if i > 0 {
			b.WriteString("\n")
		}
		f.render(b)
	}
	b.WriteString("}\n\n")
}

func (f goField) render(b *strings.Builder) {
	b.WriteString(wrap("\t", f.Doc))
	tag := f.JSON
	if !f.Required {
		b.WriteString("\t// +optional\n")
		tag += ",omitempty"
	}
	for _, m := range f.Markers {
		b.WriteString("\t// " + m + "\n")
	}
	fmt.Fprintf(b, "\t%s %s `json:%q`\n", f.Name, f.Type, tag)
}

func (sh *shape) literal() string {
	if sh.empty() {
		return "nil"
	}
	var parts []string
	if len(sh.Props) > 0 {
		props := append([]string(nil), sh.Props...)
		sort.Strings(props)
		parts = append(parts, "props: "+stringsLiteral(props))
	}
	if len(sh.Secrets) > 0 {
		parts = append(parts, "secrets: "+stringsLiteral(sh.Secrets))
	}
	if len(sh.IDRefs) > 0 {
		parts = append(parts, "idRefs: "+stringMapLiteral(sh.IDRefs))
	}
	if len(sh.Identities) > 0 {
		parts = append(parts, "identities: "+stringsLiteral(sh.Identities))
	}
	if len(sh.Fields) > 0 {
		keys := make([]string, 0, len(sh.Fields))
		for k := range sh.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fields := make([]string, len(keys))
		for i, k := range keys {
			fields[i] = strconv.Quote(k) + ": " + sh.Fields[k].literal()
		}
		parts = append(parts, "fields: map[string]*armShape{"+strings.Join(fields, ", ")+"}")
	}
	if len(sh.Renames) > 0 {
		parts = append(parts, "renames: "+stringMapLiteral(sh.Renames))
	}
	return "&armShape{" + strings.Join(parts, ", ") + "}"
}

// stringsLiteral is a []string literal of l, in its order.
func stringsLiteral(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// stringMapLiteral is a map[string]string literal of m, its keys sorted.
func stringMapLiteral(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k) + ": " + strconv.Quote(m[k])
	}
	return "map[string]string{" + strings.Join(q, ", ") + "}"
}

// elemName is the named type a field holds, directly or as list or map elements.
func elemName(r model.TypeRef) string {
	for r.Kind == model.KindSlice || r.Kind == model.KindMap {
		r = *r.Elem
	}
	return r.Name
}

// withMarkers adds the config's validation markers (given without their
// +kubebuilder:validation: prefix) to those the generator wrote; one named as a generated
// marker (MaxLength) takes its place, XValidation rules are added.
func withMarkers(generated, config []string) []string {
	const prefix = "+kubebuilder:validation:"
	name := func(m string) string {
		m = strings.TrimPrefix(m, prefix)
		items := ""
		if rest, ok := strings.CutPrefix(m, "items:"); ok {
			items, m = "items:", rest
		}
		if i := strings.IndexAny(m, "=:"); i >= 0 {
			return items + m[:i]
		}
		return items + m
	}
	replaced := map[string]bool{}
	for _, c := range config {
		if n := name(c); n != "XValidation" {
			replaced[n] = true
		}
	}
	var out []string
	for _, g := range generated {
		if !strings.HasPrefix(g, prefix) || !replaced[name(g)] {
			out = append(out, g)
		}
	}
	for _, c := range config {
		out = append(out, prefix+c)
	}
	return out
}
