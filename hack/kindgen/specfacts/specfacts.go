// Package specfacts reads what Azure's REST API specs say of a kind's body that the Azure
// SDK for Go drops: which properties Azure takes on a write and never returns (the PUT's
// definition has them and the GET's does not, or their x-ms-mutability lacks "read"), and
// which strings are secrets (x-ms-secret). It reads them from bicep-types-az's generated
// types (Azure/bicep-types-az, generated/<rp>/<namespace>/<api-version>/types.json), which
// Microsoft generates from azure-rest-api-specs with exactly those rules (its
// autorest.bicep type-generator.ts, parsePropertyFlags: WriteOnly when a property is
// missing from the GET schema or its mutability is not readable), so the facts are the
// specs' own at the commit bicep-types-az names.
//
// The specs are too large to fetch here, and bicep-types-az is fetched only by whoever
// regenerates: `kindgen specfacts -from DIR` writes File, committed, which generate reads.
package specfacts

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File is where the facts are kept, relative to kindgen's folder.
const File = "specfacts.json"

// Facts are the specs' facts of the kinds' ARM types at their pinned api-versions.
type Facts struct {
	// Source names the bicep-types-az commit read, and the azure-rest-api-specs commit it
	// was generated from.
	Source string `json:"source"`
	// Types are by ARM type as the kinds config's models spell it.
	Types map[string]*Type `json:"types"`
}

// Type is one ARM type's facts at one api-version.
type Type struct {
	APIVersion string `json:"apiVersion"`
	// File is the types.json read, relative to bicep-types-az's root.
	File string `json:"file"`
	// NotReturned are body paths (a list's elements "[]", a map's values "*") Azure takes
	// on a write and leaves out of its answers.
	NotReturned []string `json:"notReturned,omitempty"`
	// Secret are body paths of strings the specs mark x-ms-secret.
	Secret []string `json:"secret,omitempty"`
}

// Want is an ARM type at the api-version a kind speaks.
type Want struct {
	ARMType, APIVersion string
}

// Property flags of bicep-types (bicep-types src/types.ts, ObjectTypePropertyFlags).
const (
	flagReadOnly  = 2
	flagWriteOnly = 4
)

type typeRef struct {
	Ref string `json:"$ref"`
}

type property struct {
	Type  typeRef `json:"type"`
	Flags int     `json:"flags"`
}

// node is any entry of a types.json: the fields of every kind the walk reads.
type node struct {
	Kind                 string              `json:"$type"`
	Name                 string              `json:"name"`
	Body                 *typeRef            `json:"body"`
	Properties           map[string]property `json:"properties"`
	AdditionalProperties *typeRef            `json:"additionalProperties"`
	ItemType             *typeRef            `json:"itemType"`
	BaseProperties       map[string]property `json:"baseProperties"`
	// Elements are a discriminated object's variants (a map) or a union's members (a list).
	Elements  json.RawMessage `json:"elements"`
	Sensitive bool            `json:"sensitive"`
}

type typesFile struct {
	rel   string
	nodes []node
}

func (f *typesFile) at(r typeRef) (*node, error) {
	i := strings.LastIndex(r.Ref, "/")
	var n int
	if _, err := fmt.Sscanf(r.Ref[i+1:], "%d", &n); err != nil || i < 0 || n < 0 || n >= len(f.nodes) {
		return nil, fmt.Errorf("%s: bad reference %q", f.rel, r.Ref)
	}
	return &f.nodes[n], nil
}

// Read finds each wanted type at its api-version in the types.json files under root (a
// bicep-types-az checkout, or the part of its generated folder holding those versions)
// and reads its facts. A wanted type no file has is an error: the facts would be missing
// without a word.
func Read(root, source string, want []Want) (*Facts, error) {
	index := map[string]struct {
		file *typesFile
		body typeRef
	}{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "types.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		f := &typesFile{rel: filepath.ToSlash(rel)}
		if err := json.Unmarshal(data, &f.nodes); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, n := range f.nodes {
			if n.Kind == "ResourceType" && n.Body != nil {
				key := strings.ToLower(n.Name)
				if _, seen := index[key]; !seen {
					index[key] = struct {
						file *typesFile
						body typeRef
					}{f, *n.Body}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &Facts{Source: source, Types: map[string]*Type{}}
	var missing []string
	for _, w := range want {
		e, ok := index[strings.ToLower(w.ARMType+"@"+w.APIVersion)]
		if !ok {
			missing = append(missing, w.ARMType+"@"+w.APIVersion)
			continue
		}
		t := &Type{APIVersion: w.APIVersion, File: e.file.rel}
		body, err := e.file.at(e.body)
		if err != nil {
			return nil, err
		}
		if err := walk(e.file, body, "", map[string]bool{}, t); err != nil {
			return nil, fmt.Errorf("%s: %w", w.ARMType, err)
		}
		t.NotReturned = uniqSorted(t.NotReturned)
		t.Secret = uniqSorted(t.Secret)
		out.Types[w.ARMType] = t
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("no types.json under %s has %s", root, strings.Join(missing, ", "))
	}
	return out, nil
}

// envelope are the body's own properties bicep adds for every resource.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "apiVersion": true}

func walk(f *typesFile, n *node, path string, onPath map[string]bool, t *Type) error {
	switch n.Kind {
	case "ObjectType":
		if onPath[n.Name] {
			return nil
		}
		onPath[n.Name] = true
		defer delete(onPath, n.Name)
		if err := walkProps(f, n.Properties, path, onPath, t); err != nil {
			return err
		}
		if n.AdditionalProperties != nil {
			v, err := f.at(*n.AdditionalProperties)
			if err != nil {
				return err
			}
			return walk(f, v, join(path, "*"), onPath, t)
		}
	case "DiscriminatedObjectType":
		if err := walkProps(f, n.BaseProperties, path, onPath, t); err != nil {
			return err
		}
		var variants map[string]typeRef
		if err := json.Unmarshal(n.Elements, &variants); err != nil {
			return fmt.Errorf("%s: %s: elements: %w", f.rel, n.Name, err)
		}
		for _, name := range sortedKeys(variants) {
			v, err := f.at(variants[name])
			if err != nil {
				return err
			}
			if err := walk(f, v, path, onPath, t); err != nil {
				return err
			}
		}
	case "UnionType":
		var members []typeRef
		if err := json.Unmarshal(n.Elements, &members); err != nil {
			return fmt.Errorf("%s: union: %w", f.rel, err)
		}
		for _, r := range members {
			v, err := f.at(r)
			if err != nil {
				return err
			}
			if err := walk(f, v, path, onPath, t); err != nil {
				return err
			}
		}
	case "ArrayType":
		if n.ItemType != nil {
			v, err := f.at(*n.ItemType)
			if err != nil {
				return err
			}
			return walk(f, v, path+"[]", onPath, t)
		}
	case "StringType":
		if n.Sensitive && path != "" {
			t.Secret = append(t.Secret, path)
		}
	}
	return nil
}

func walkProps(f *typesFile, props map[string]property, path string, onPath map[string]bool, t *Type) error {
	for _, name := range sortedKeys(props) {
		if path == "" && envelope[name] {
			continue
		}
		p := props[name]
		q := join(path, name)
		switch {
		case p.Flags&flagReadOnly != 0:
			continue
		case p.Flags&flagWriteOnly != 0:
			t.NotReturned = append(t.NotReturned, q)
			continue
		}
		v, err := f.at(p.Type)
		if err != nil {
			return err
		}
		if err := walk(f, v, q, onPath, t); err != nil {
			return err
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniqSorted(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Load reads the file; a missing one is no facts.
func Load(path string) (*Facts, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &Facts{Types: map[string]*Type{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// Of is armType's facts, or nil.
func (f *Facts) Of(armType string) *Type {
	for k, t := range f.Types {
		if strings.EqualFold(k, armType) {
			return t
		}
	}
	return nil
}

// Marshal writes f as the committed file.
func (f *Facts) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
