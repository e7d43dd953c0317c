package expressions

import (
	"math"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apiserver/pkg/cel/library"
)

// actualCost prices calls at runtime: Kubernetes' estimator for the library
// functions, then the O(n) standard operations by function name and the
// actual argument types.
//
// cel-go prices `+`, `==`, matches, startsWith... by overload id, and a call
// on `dyn` operands (everything read from `self` is dyn) is dispatched
// without one, so it would cost 1 whatever the sizes: `self.spec.a +
// self.spec.a` on megabyte strings would cost 1. Pricing by name closes that.
type actualCost struct{ k8s *library.CostEstimator }

func (c actualCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	if v := c.k8s.CallCost(function, overloadID, args, result); v != nil {
		return v
	}
	var cost uint64
	switch function {
	case "_+_":
		if len(args) != 2 || !sequence(args[0]) || !sequence(args[1]) {
			return nil
		}
		cost = traverse(size(args[0]) + size(args[1]))
	case "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_":
		if len(args) != 2 || !sequence(args[0]) || !sequence(args[1]) {
			return nil
		}
		cost = traverse(min(size(args[0]), size(args[1])))
	case "startsWith", "endsWith":
		if len(args) != 2 {
			return nil
		}
		cost = traverse(size(args[1]))
	case "contains":
		if len(args) != 2 {
			return nil
		}
		cost = traverse(size(args[0])) * traverse(size(args[1]))
	case "matches":
		if len(args) != 2 {
			return nil
		}
		cost = uint64(math.Ceil((1+float64(size(args[0])))*common.StringTraversalCostFactor)) *
			uint64(math.Ceil(float64(size(args[1]))*common.RegexStringLengthCostFactor))
	case "string", "bytes":
		if len(args) != 1 || !sequence(args[0]) {
			return nil
		}
		cost = traverse(size(args[0]))
	case "@in":
		if len(args) != 2 {
			return nil
		}
		cost = size(args[1])
	default:
		return nil
	}
	cost = max(cost, 1)
	return &cost
}

func sequence(v ref.Val) bool {
	switch v.(type) {
	case types.String, types.Bytes:
		return true
	}
	return false
}

func size(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n > 0 {
			return uint64(n)
		}
	}
	return 1
}

func traverse(n uint64) uint64 {
	return uint64(math.Ceil(float64(n) * common.StringTraversalCostFactor))
}
