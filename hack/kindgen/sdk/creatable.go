package sdk

import (
	"go/types"
	"sort"
	"strings"
)

// creatable returns the package's types that some client PUTs as a whole resource (the
// request body of a PUT whose path ends in a name): the types that are ARM resources of
// their own. It reads every client of the package once.
func (p *Package) creatable() map[string]bool {
	p.creatableOnce.Do(func() {
		p.creatableSet = map[string]bool{}
		var clients []string
		for recv := range p.methods {
			if strings.HasSuffix(recv, "Client") {
				clients = append(clients, recv)
			}
		}
		sort.Strings(clients)
		for _, c := range clients {
			ops, err := p.clientOps(c)
			if err != nil {
				continue // not a client type after all
			}
			for _, op := range ops {
				if op.httpMethod != "PUT" || !strings.HasSuffix(op.path, "}") {
					continue
				}
				if n, ok := op.request.(*types.Named); ok {
					p.creatableSet[n.Obj().Name()] = true
				}
			}
		}
	})
	return p.creatableSet
}
