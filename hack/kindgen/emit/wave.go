package emit

import (
	"fmt"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// Wave is the kinds generated now, parents before children: every kind of api/kinds.yaml
// that is not written by hand (existing: true), in the file's order except that a kind
// whose owner is generated too comes after it, and an extension resource after every
// generated kind its owner may name. api/kinds.yaml is the one list of kinds;
// the order is read from the parents the models already name (model.Kind.Owner).
func Wave(all []*model.Kind) ([]*model.Kind, error) {
	byType, byKind := map[string]*model.Kind{}, map[string]*model.Kind{}
	for _, m := range all {
		if !m.Existing {
			byType[strings.ToLower(m.ARMType)] = m
			byKind[m.Group.Name+"/"+m.Kind] = m
		}
	}
	var out []*model.Kind
	state := map[*model.Kind]int{} // 1 visiting, 2 placed
	var visit func(m *model.Kind, path []string) error
	visit = func(m *model.Kind, path []string) error {
		switch state[m] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("wave: owners form a cycle: %s", strings.Join(append(path, m.Group.Name+"/"+m.Kind), " -> "))
		}
		state[m] = 1
		owners := []*model.Kind{byType[strings.ToLower(m.Owner)]}
		if m.Extension != nil {
			owners = nil
			for _, o := range m.Extension.Owners {
				owners = append(owners, byKind[o.Group.Name+"/"+o.Kind])
			}
		}
		for _, owner := range owners {
			if owner == nil {
				continue
			}
			if err := visit(owner, append(path, m.Group.Name+"/"+m.Kind)); err != nil {
				return err
			}
		}
		state[m] = 2
		out = append(out, m)
		return nil
	}
	for _, m := range all {
		if m.Existing {
			continue
		}
		if err := visit(m, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}
