package emit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// nameRef is one reconcilers.NameRef of a kind: a PUT body path holding a name, not an
// ARM ID, that Azure turns into a resource or a destination, which the Tenant bounds.
type nameRef struct {
	Path, Means, SubscriptionPath string
	// Because is the config's reason, written beside it.
	Because string
}

// findNames returns the body paths of the fields the config flags with names
// (model.Field.Names), wherever their types appear in body: lists are crossed, a map's
// values are "*". It fails on a flagged field that is not a string or a list of strings,
// or that the body never reaches (read-only, skipped, or behind an ID kept alone).
func (k *Kind) findNames(body *model.Type) ([]nameRef, error) {
	var out []nameRef
	reached := map[string]bool{}
	var bad error
	onPath := map[string]bool{}
	var walk func(t *model.Type, path string)
	walk = func(t *model.Type, path string) {
		if t == nil || onPath[t.Name] || bad != nil {
			return
		}
		onPath[t.Name] = true
		defer delete(onPath, t.Name)
		for i := range t.Fields {
			f := &t.Fields[i]
			if f.Skip != nil || f.ReadOnly || f.AdditionalProperties || f.JSON == "" || f.Secret != nil || (path == "" && topLevelOwn[f.JSON]) {
				continue
			}
			p := join(path, f.JSON)
			if f.Names != nil {
				if !isStringID(f.Type) {
					bad = fmt.Errorf("%s/%s: %s.%s holds names (%s) but is not a string or a list of strings", k.Group.Name, k.Kind.Kind, t.Name, f.JSON, f.Names.Means)
					return
				}
				reached[t.Name+"."+f.JSON] = true
				ref := nameRef{Path: p, Means: f.Names.Means, Because: f.Names.Reason}
				if f.Names.Subscription != "" {
					ref.SubscriptionPath = join(path, f.Names.Subscription)
				}
				out = append(out, ref)
				continue
			}
			r := f.Type
			for r.Kind == model.KindSlice || r.Kind == model.KindMap {
				if r.Kind == model.KindMap {
					p += ".*"
				}
				r = *r.Elem
			}
			if r.Kind == model.KindNamed {
				walk(k.Types[r.Name], p)
			}
		}
		if u := t.Union; u != nil {
			// A variant's fields sit beside the discriminator, at the same path.
			if u.Base != "" {
				walk(k.Types[u.Base], path)
			}
			for _, v := range u.Variants {
				walk(k.Types[v.Type], path)
			}
		}
	}
	walk(body, "")
	if bad != nil {
		return nil, bad
	}
	var missed []string
	for name, t := range k.Types {
		for _, f := range t.Fields {
			if f.Names != nil && !reached[name+"."+f.JSON] {
				missed = append(missed, name+"."+f.JSON)
			}
		}
	}
	if len(missed) > 0 {
		sort.Strings(missed)
		return nil, fmt.Errorf("%s/%s: fields with names that the create body does not reach: %s", k.Group.Name, k.Kind.Kind, strings.Join(missed, ", "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// namesLiteral is the Go of Facts.Names, each entry with its reason.
func namesLiteral(refs []nameRef) string {
	var b strings.Builder
	b.WriteString("Names: []reconcilers.NameRef{\n")
	for _, r := range refs {
		b.WriteString(wrap("\t\t\t", r.Because))
		fmt.Fprintf(&b, "\t\t\t{Path: %q, Means: %q", r.Path, r.Means)
		if r.SubscriptionPath != "" {
			fmt.Fprintf(&b, ", SubscriptionPath: %q", r.SubscriptionPath)
		}
		b.WriteString("},\n")
	}
	b.WriteString("\t\t}")
	return b.String()
}
