package emulator

import (
	"slices"
	"strings"
)

// Networking parents that embed their child resources: a virtual network's subnets, a
// network security group's securityRules, a route table's routes. As in Azure, a PUT of
// the parent defines the whole set: the children named in properties.<collection> are
// created or updated as child resources (each readable at its own URL), the others are
// deleted, an absent collection counting as an empty one; a subnet something still
// refers to is not deleted (400 InUseSubnetCannotBeDeleted) and the PUT fails. The
// parent's GET lists its children, and a write or delete of a child at its own URL
// changes that list. See github.com/Azure/azure-quickstart-templates/issues/2786 and
// github.com/Azure/ResourceModules/issues/1111 (the error), and ASO's
// v2/api/network/customizations/virtual_network_extensions.go, which merges the GET's
// subnets into every PUT for this reason.
//
// A subnet in use is not deleted by its own DELETE either, nor by its network's.
//
// Not modelled: an NSG's defaultSecurityRules;
// an embedded child's provisioningState is the one it had at the last change to the set
// (a child's own long-running write that finishes later is not copied into the parent).

// embeddedCollection names one parent's embedded children.
type embeddedCollection struct {
	parentType string // Microsoft.Network/virtualNetworks
	property   string // subnets
	inUseCheck bool   // deleting one that something refers to is refused
}

var embeddedCollections = []embeddedCollection{
	{parentType: "Microsoft.Network/virtualNetworks", property: "subnets", inUseCheck: true},
	{parentType: "Microsoft.Network/networkSecurityGroups", property: "securityRules"},
	{parentType: "Microsoft.Network/routeTables", property: "routes"},
}

// declaredChildrenKey carries a parent PUT's declared children from prepare to stored
// (which runs once the parent exists). No JSON client can send it: prepare overwrites it.
const declaredChildrenKey = "\x00declaredChildren"

// networkBehaviours are the parents and their child types; their long-running shapes are
// the generated ones (generatedBehaviours).
func networkBehaviours() []*typeBehaviour {
	var out []*typeBehaviour
	for _, c := range embeddedCollections {
		childType := c.parentType + "/" + c.property
		parent := &typeBehaviour{
			fullType: c.parentType,
			prepare:  c.prepare,
			stored:   c.apply,
		}
		child := &typeBehaviour{
			fullType: childType,
			stored:   func(e *Emulator, r *resource) { c.syncParent(e, r, nil) },
			// Removal hooks run before the child leaves the tree.
			removed: func(e *Emulator, r *resource) { c.syncParent(e, r, r) },
		}
		if c.inUseCheck {
			child.beforeDelete = func(e *Emulator, r *resource) *apiError { return inUse(e, r, e.resources[r.parentKey]) }
			parent.beforeDelete = func(e *Emulator, r *resource) *apiError {
				for _, ch := range collectLocked(r, c.childTypeKey(), false, nil) {
					if err := inUse(e, ch, r); err != nil {
						return err
					}
				}
				return nil
			}
		}
		out = append(out, parent, child)
	}
	return out
}

func (c embeddedCollection) childTypeKey() string {
	return strings.ToLower(c.parentType + "/" + c.property)
}

// prepare checks the declared set and keeps it for apply: each child must be an object
// with a name, and with an existing parent, no child to be deleted may be in use.
func (c embeddedCollection) prepare(w *writeRequest) *apiError {
	delete(w.body, declaredChildrenKey)
	raw, _ := w.props[c.property].([]any)
	declared := make([]map[string]any, 0, len(raw))
	names := map[string]bool{}
	for _, v := range raw {
		m, ok := v.(map[string]any)
		if !ok || str(m, "name") == "" {
			return badRequest("InvalidRequestFormat", "Cannot parse the request: each of properties.%s needs a name.", c.property)
		}
		names[strings.ToLower(str(m, "name"))] = true
		declared = append(declared, m)
	}
	if w.existing != nil && c.inUseCheck {
		for _, child := range collectLocked(w.existing, c.childTypeKey(), false, nil) {
			if names[strings.ToLower(str(child.body, "name"))] {
				continue
			}
			if err := inUse(w.e, child, w.existing); err != nil {
				return err
			}
		}
	}
	w.body[declaredChildrenKey] = declared
	return nil
}

// apply runs after a parent is stored. After an ARM write it makes the children the
// declared set; after a restore or an out-of-band patch it only lists the children.
func (c embeddedCollection) apply(e *Emulator, parent *resource) {
	declared, ok := parent.body[declaredChildrenKey].([]map[string]any)
	delete(parent.body, declaredChildrenKey)
	// The stored answer's order (an answer transform may have reordered it) is
	// the order the children are listed in.
	answered := parent.props()[c.property]
	if ok {
		keep := map[string]bool{}
		for _, m := range declared {
			name := str(m, "name")
			keep[strings.ToLower(name)] = true
			body := map[string]any{}
			if p, ok := m["properties"].(map[string]any); ok {
				body["properties"] = cloneBody(p)
			}
			id := parent.id + "/" + c.property + "/" + name
			// Written with the parent's operation: the child is there when it ends.
			_, _, _ = e.storeLocked(writeTarget{id: id, fullType: parent.typ + "/" + c.property, name: name, parent: parent}, body, "")
		}
		for _, child := range collectLocked(parent, c.childTypeKey(), false, nil) {
			if !keep[strings.ToLower(str(child.body, "name"))] {
				e.removeLocked(child)
			}
		}
		parent.props()[c.property] = answered
	}
	c.list(parent, nil)
}

// syncParent lists a child's parent's children again after the child changed.
func (c embeddedCollection) syncParent(e *Emulator, child, gone *resource) {
	if p := e.resources[child.parentKey]; p != nil {
		c.list(p, gone)
	}
}

// list writes the parent's children into properties.<collection>: those listed before
// keep their place, new ones follow by name. gone is a child being removed, or nil.
func (c embeddedCollection) list(parent, gone *resource) {
	children := slices.DeleteFunc(collectLocked(parent, c.childTypeKey(), false, nil), func(r *resource) bool { return r == gone })
	order := map[string]int{}
	old, _ := parent.props()[c.property].([]any)
	for i, v := range old {
		if m, ok := v.(map[string]any); ok {
			order[strings.ToLower(str(m, "name"))] = i + 1
		}
	}
	slices.SortFunc(children, func(a, b *resource) int {
		na, nb := strings.ToLower(str(a.body, "name")), strings.ToLower(str(b.body, "name"))
		oa, ob := order[na], order[nb]
		switch {
		case oa != 0 && ob != 0:
			return oa - ob
		case oa != 0:
			return -1
		case ob != 0:
			return 1
		}
		return strings.Compare(na, nb)
	})
	list := make([]any, 0, len(children))
	for _, ch := range children {
		list = append(list, cloneBody(ch.body))
	}
	parent.props()[c.property] = list
	parent.refresh()
}

// inUse refuses to delete a subnet another resource refers to, as Azure does.
func inUse(e *Emulator, subnet, network *resource) *apiError {
	if network == nil {
		return nil
	}
	if by := e.referrerLocked(subnet, network); by != "" {
		return badRequest("InUseSubnetCannotBeDeleted",
			"Subnet %s is in use by %s and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet. See aka.ms/deletesubnet.",
			str(subnet.body, "name"), by)
	}
	return nil
}

// referrerLocked returns the ID of a resource, other than child, its descendants and
// parent, whose body refers to child's ID; "" when none does. It scans every resource:
// cheap at the emulator's sizes.
func (e *Emulator) referrerLocked(child, parent *resource) string {
	id := strings.ToLower(child.id)
	for key, r := range e.resources {
		if key == parent.key || key == child.key || strings.HasPrefix(key, child.key+"/") {
			continue
		}
		raw := strings.ToLower(string(r.raw))
		for i := strings.Index(raw, id); i >= 0; {
			// The whole ID, not a prefix of a sibling's (subnet "a" of "ab").
			if end := i + len(id); end == len(raw) || raw[end] == '"' || raw[end] == '/' {
				return r.id
			}
			next := strings.Index(raw[i+1:], id)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return ""
}
