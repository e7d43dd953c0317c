package roles

import (
	"fmt"
	"strings"
)

// Role types of properties.type in ARM's role definitions.
const (
	TypeBuiltIn = "BuiltInRole"
	TypeCustom  = "CustomRole"
)

// FromARM reads a role definition in ARM's JSON shape (decoded into maps):
// {"id", "name", "properties": {"roleName", "type", "description",
// "permissions": [{"actions", "notActions", "dataActions", "notDataActions"}],
// "assignableScopes"}}. It fails on a body without properties or with a
// permission list of the wrong shape, so a caller deciding privilege never
// mistakes an unreadable definition for an empty one.
func FromARM(body map[string]any) (Definition, error) {
	props, ok := body["properties"].(map[string]any)
	if !ok {
		return Definition{}, fmt.Errorf("role definition has no properties")
	}
	d := Definition{ID: strings.ToLower(str(body, "name")), Name: str(props, "roleName"), Description: str(props, "description")}
	if d.ID == "" {
		d.ID = strings.ToLower(GUIDOf(str(body, "id")))
	}
	t := str(props, "type")
	if t == "" {
		t = str(props, "roleType")
	}
	d.Custom = !strings.EqualFold(t, TypeBuiltIn)
	scopes, err := strs(props["assignableScopes"], "assignableScopes")
	if err != nil {
		return Definition{}, err
	}
	d.AssignableScopes = scopes
	perms, ok := props["permissions"].([]any)
	if !ok && props["permissions"] != nil {
		return Definition{}, fmt.Errorf("role definition permissions is not a list")
	}
	for i, raw := range perms {
		m, ok := raw.(map[string]any)
		if !ok {
			return Definition{}, fmt.Errorf("role definition permissions[%d] is not an object", i)
		}
		var p Permission
		for _, f := range []struct {
			key string
			dst *[]string
		}{{"actions", &p.Actions}, {"notActions", &p.NotActions}, {"dataActions", &p.DataActions}, {"notDataActions", &p.NotDataActions}} {
			v, err := strs(m[f.key], fmt.Sprintf("permissions[%d].%s", i, f.key))
			if err != nil {
				return Definition{}, err
			}
			*f.dst = v
		}
		d.Permissions = append(d.Permissions, p)
	}
	return d, nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func strs(v any, what string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("role definition %s is not a list of strings", what)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("role definition %s is not a list of strings", what)
		}
		out = append(out, s)
	}
	return out, nil
}
