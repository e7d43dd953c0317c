package planclient

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MaxObjects is the most objects one Plan holds (the Plan CRD's
// spec.objects maxItems).
const MaxObjects = 200

// split groups objs, in order, into Plans of at most max objects each,
// keeping every owner tree (objects joined by spec.owner.name, whatever the
// kinds) in one Plan: the operator previews an object under an owner the same
// Plan creates, never one another Plan holds. Each group lists indexes into
// objs in their order. A tree of more than max objects is an error naming it.
func split(objs []*unstructured.Unstructured, max int) ([][]int, error) {
	// Union-find over the objects, joined through the owner names they give.
	root := make([]int, len(objs))
	for i := range root {
		root[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if root[i] != i {
			root[i] = find(root[i])
		}
		return root[i]
	}
	byName := map[string]int{}
	for i, o := range objs {
		if j, ok := byName[o.GetName()]; ok {
			root[find(i)] = find(j)
		} else {
			byName[o.GetName()] = i
		}
	}
	for i, o := range objs {
		if owner, _, _ := unstructured.NestedString(o.Object, "spec", "owner", "name"); owner != "" {
			if j, ok := byName[owner]; ok {
				root[find(i)] = find(j)
			}
		}
	}
	// Trees in the order of their first object; each tree's objects in order.
	var order []int
	members := map[int][]int{}
	for i := range objs {
		r := find(i)
		if _, ok := members[r]; !ok {
			order = append(order, r)
		}
		members[r] = append(members[r], i)
	}
	var groups [][]int
	var cur []int
	for _, r := range order {
		tree := members[r]
		if len(tree) > max {
			first := objs[tree[0]]
			return nil, fmt.Errorf("%d objects form one owner tree (from %s %s): a plan holds at most %d objects under one owner tree; plan the tree in parts, its owners first",
				len(tree), first.GetKind(), first.GetName(), max)
		}
		if len(cur)+len(tree) > max {
			groups, cur = append(groups, cur), nil
		}
		cur = append(cur, tree...)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	// A group's objects in document order: an owner before what it owns.
	for _, g := range groups {
		slices.Sort(g)
	}
	return groups, nil
}
