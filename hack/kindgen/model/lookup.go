package model

import "strings"

// Field returns the field at a dotted JSON path from the resource type
// ("properties.addressSpace.addressPrefixes"), stepping through slices and maps, and
// whether it exists.
func (k *Kind) Field(path string) (*Field, bool) {
	return k.FieldOf(k.Resource, path)
}

// FieldOf is Field from another type of the table, such as the create request's
// (AccountCreateParameters), whose writable fields can differ from the resource's.
func (k *Kind) FieldOf(typeName, path string) (*Field, bool) {
	t := k.Types[typeName]
	var f *Field
	for i, name := range strings.Split(path, ".") {
		if i > 0 {
			t = k.namedOf(f.Type)
		}
		if t == nil {
			return nil, false
		}
		f = t.field(name)
		if f == nil {
			return nil, false
		}
	}
	return f, f != nil
}

// Operations returns every operation of the kind in a fixed order.
func (k *Kind) Operations() []Operation {
	var ops []Operation
	for _, o := range []*Operation{k.Get, k.Create, k.Update, k.UpdateTags, k.Delete} {
		if o != nil {
			ops = append(ops, *o)
		}
	}
	ops = append(ops, k.Lists...)
	ops = append(ops, k.Actions...)
	return append(ops, k.Other...)
}

// Action returns the action with the given name (listKeys), if any.
func (k *Kind) Action(name string) (Operation, bool) {
	for _, a := range k.Actions {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return Operation{}, false
}

func (k *Kind) namedOf(r TypeRef) *Type {
	for r.Kind == KindSlice || r.Kind == KindMap {
		r = *r.Elem
	}
	if r.Kind != KindNamed {
		return nil
	}
	return k.Types[r.Name]
}

func (t *Type) field(json string) *Field {
	for i := range t.Fields {
		if t.Fields[i].JSON == json {
			return &t.Fields[i]
		}
	}
	return nil
}
