package emulator

import (
	"encoding/json"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator/armpath"
)

// answerLocked applies the transforms of typeKey to body, the answer about to be stored
// for the resource id. It returns the changeAfterSucceeded transforms that are still to
// happen; those done is a resource's record of having already changed apply at once.
// Caller holds e.mu for writing.
func (e *Emulator) answerLocked(id, typeKey string, body map[string]any, done map[string]bool) (later []*compiledAnswer) {
	for _, c := range e.answers {
		if c.typeKey != typeKey {
			continue
		}
		if c.Op == OpChangeAfterSucceeded && !done[c.id] {
			later = append(later, c)
			continue
		}
		c.apply(id, body)
	}
	return later
}

// applyAnswers applies transforms picked for one resource (its type's) to body as
// answerLocked does, and returns the changes still to happen.
func applyAnswers(cs []*compiledAnswer, id string, body map[string]any, done map[string]bool) (later []*compiledAnswer) {
	for _, c := range cs {
		if c.Op == OpChangeAfterSucceeded && !done[c.id] {
			later = append(later, c)
			continue
		}
		c.apply(id, body)
	}
	return later
}

// apply changes body, the answer of the resource id, in place.
func (c *compiledAnswer) apply(id string, body map[string]any) {
	create := false
	var fn editFunc
	switch c.Op {
	case OpCase:
		fn = mapString(func(s string) any { return changeCase(s, c.Case) })
	case OpDisplayLocation:
		fn = mapString(func(s string) any { return azurev1alpha1.DisplayLocation(s) })
	case OpAddDefault:
		create = true
		fn = func(v any, ok bool) (any, bool) {
			if ok {
				return v, true
			}
			return cloneValue(c.value), true
		}
	case OpForce, OpChangeAfterSucceeded:
		create = true
		fn = func(any, bool) (any, bool) { return cloneValue(c.value), true }
	case OpAddElement:
		create = true
		fn = func(v any, ok bool) (any, bool) {
			list, isList := v.([]any)
			if ok && !isList {
				return v, true
			}
			if hasElement(list, c.value) {
				return v, true
			}
			return append(slices.Clone(list), cloneValue(c.value)), true
		}
	case OpDrop:
		fn = func(any, bool) (any, bool) { return nil, false }
	case OpReorder:
		fn = func(v any, ok bool) (any, bool) {
			list, isList := v.([]any)
			if !isList {
				return v, ok
			}
			return sortedBy(list, c.Key, c.Descending), true
		}
	case OpReformatXML:
		fn = mapString(func(s string) any { return reindentXML(s) })
	case OpExpandID:
		base := ancestorID(id, c.Of)
		fn = mapString(func(s string) any { return expandID(base, s) })
	case OpTrimSlash:
		fn = mapString(func(s string) any { return strings.TrimLeft(s, "/") })
	case OpIntEnum:
		fn = mapString(func(s string) any {
			for i, v := range c.Enum {
				if strings.EqualFold(v, s) {
					return json.Number(strconv.Itoa(i))
				}
			}
			return s
		})
	case OpCIDR:
		fn = mapString(func(s string) any {
			if a, err := netip.ParseAddr(s); err == nil {
				return netip.PrefixFrom(a, a.BitLen()).String()
			}
			return s
		})
	case OpSQLSkuName:
		fn = func(v any, ok bool) (any, bool) {
			if sku, isMap := v.(map[string]any); isMap {
				return sqlSku(sku), true
			}
			return v, ok
		}
	default:
		return
	}
	editPath(body, c.path, create, fn)
}

// sqlVCoreTiers are the tiers of Azure SQL's vCore editions, as answered with their
// short names (CreateVCoreDatabaseByServiceObjective.json: "BC" is "BusinessCritical";
// HyperscaleElasticPoolCreateOrUpdateSetHighAvailabilityReplicaCount.json: "HS" is
// "Hyperscale"; CreateVCoreDatabaseBySkuNameCapacity.json, elastic pools: "GP" is
// "GeneralPurpose").
var sqlVCoreTiers = map[string]string{"BC": "BusinessCritical", "GP": "GeneralPurpose", "HS": "Hyperscale"}

// sqlSku is an Azure SQL SKU as Azure answers it: the name <edition>_<family>, the
// capacity apart (a capacity in the name wins), family and tier those of a vCore name. A DTU SKU ("S0",
// "Standard") has no family and is answered as sent.
func sqlSku(sku map[string]any) map[string]any {
	out := maps.Clone(sku)
	name, _ := sku["name"].(string)
	family, _ := sku["family"].(string)
	parts := strings.Split(name, "_")
	switch {
	case len(parts) == 1 && family != "" && sqlVCoreTiers[strings.ToUpper(name)] != "":
		name = name + "_" + family
		out["name"] = name
	case len(parts) == 3 && isDigits(parts[2]):
		name = parts[0] + "_" + parts[1]
		out["name"] = name
		out["capacity"] = json.Number(parts[2])
	}
	// A vCore name says its family and tier: they are answered so, whatever defaults
	// the examples add around them.
	parts = strings.Split(name, "_")
	if tier := sqlVCoreTiers[strings.ToUpper(parts[0])]; len(parts) == 2 && tier != "" {
		out["family"], out["tier"] = parts[1], tier
	}
	return out
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// mapString edits string values with f and leaves everything else as it is.
func mapString(f func(string) any) editFunc {
	return func(v any, ok bool) (any, bool) {
		if s, isString := v.(string); isString {
			return f(s), true
		}
		return v, ok
	}
}

// changeCase rewrites s in one of the case modes.
func changeCase(s, mode string) string {
	switch mode {
	case CaseLower:
		return strings.ToLower(s)
	case CaseUpper:
		return strings.ToUpper(s)
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	if mode == CaseCamel {
		return string(unicode.ToLower(r)) + s[n:]
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// ancestorID is the ID of id's nearest ancestor of type of, or of its parent when of is
// empty; "" when there is none.
func ancestorID(id, of string) string {
	ap := armpath.Parse(id)
	if len(ap.Steps) < 2 {
		return ""
	}
	if of == "" {
		return ap.Steps[len(ap.Steps)-2].ID
	}
	for i := len(ap.Steps) - 2; i >= 0; i-- {
		if strings.EqualFold(ap.Steps[i].FullType, of) {
			return ap.Steps[i].ID
		}
	}
	return ""
}

// expandID puts base before a relative ID ("/apis"); full IDs stay as they are.
func expandID(base, s string) string {
	l := strings.ToLower(s)
	if base == "" || !strings.HasPrefix(s, "/") || strings.HasPrefix(l, "/subscriptions/") || strings.HasPrefix(l, "/providers/") {
		return s
	}
	return base + s
}

// hasElement reports whether list holds v: for an object with a string name, an element
// of that name (compared without case, as ARM compares names); otherwise an equal one.
func hasElement(list []any, v any) bool {
	if m, ok := v.(map[string]any); ok {
		if name, ok := m["name"].(string); ok {
			for _, el := range list {
				if em, ok := el.(map[string]any); ok {
					if en, ok := em["name"].(string); ok && strings.EqualFold(en, name) {
						return true
					}
				}
			}
			return false
		}
	}
	want, _ := json.Marshal(v)
	for _, el := range list {
		if got, _ := json.Marshal(el); string(got) == string(want) {
			return true
		}
	}
	return false
}

// sortedBy returns list sorted by each element's key ("name" when empty) as a string;
// elements without it keep their order after the others.
func sortedBy(list []any, key string, descending bool) []any {
	if key == "" {
		key = "name"
	}
	keyOf := func(el any) (string, bool) {
		m, _ := el.(map[string]any)
		s, ok := m[key].(string)
		return s, ok
	}
	out := slices.Clone(list)
	sort.SliceStable(out, func(i, j int) bool {
		a, aok := keyOf(out[i])
		b, bok := keyOf(out[j])
		if aok != bok {
			return aok
		}
		if descending {
			return a > b
		}
		return a < b
	})
	return out
}

// cloneValue deep-copies a JSON value (maps, lists, scalars) so stored answers never
// share maps.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// answeredLocked notes that r's body has just been answered to a client. The first
// answer that shows r Succeeded while a change is still to happen makes that change due
// at the next request. A read lock is enough.
func (e *Emulator) answeredLocked(r *resource) {
	if len(r.later) == 0 {
		return
	}
	p, _ := r.body["properties"].(map[string]any)
	if str(p, "provisioningState") == opSucceeded && r.laterServed.CompareAndSwap(false, true) {
		e.answersDue.Add(1)
	}
}

// settleAnswers makes the due changes: each resource answered Succeeded since its write
// now answers the changed values. It is cheap when nothing is due.
func (e *Emulator) settleAnswers() {
	if e.answersDue.Load() == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.resources {
		if !r.laterServed.Load() {
			continue
		}
		for _, c := range r.later {
			c.apply(r.id, r.body)
			if r.answerDone == nil {
				r.answerDone = map[string]bool{}
			}
			r.answerDone[c.id] = true
		}
		r.later = nil
		r.laterServed.Store(false)
		r.refresh()
		// The changed body is the resource's, as after a portal edit: the indexes kept
		// beside it (a cluster's list of its agent pools) follow.
		if b := e.behaviours[r.typeKey()]; b != nil && b.stored != nil {
			b.stored(e, r)
		}
	}
	e.answersDue.Store(0)
}
