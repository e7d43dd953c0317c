package reconcilers

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file applies a kind's Facts about Azure's answers: in the comparison
// (comparisonRules: Normalize, NotReturned, OpenValues, applied by
// reconcilers/comparison), in the digest of a write (NotReturned) and to the
// body before a write (Forced, desired.go).

// comparisonRules are what the comparison takes of a kind: its write-only
// paths (never compared), open sets and facts about Azure's answers, and its
// notion of equivalent strings (Hooks.Equivalent).
func comparisonRules(f Facts, h Hooks) comparison.Rules {
	return comparison.Rules{
		Ignore:      f.WriteOnly,
		OpenSets:    f.OpenSets,
		Normalize:   f.Normalize,
		NotReturned: f.NotReturned,
		OpenValues:  f.OpenValues,
		Equivalent:  h.Equivalent,
	}
}

// digestedPaths are the paths whose values the digest of a write keeps
// (status.writeOnlyHash, writeonly.go): the write-only ones, which Azure never
// returns, and those it may leave out of its answer (Facts.NotReturned), so a
// change of the spec there is still written once. Like the write-only ones,
// they are read through nested objects only (valueAt), not across lists.
func digestedPaths(f Facts) []string {
	if len(f.NotReturned) == 0 {
		return f.WriteOnly
	}
	return append(slices.Clone(f.WriteOnly), f.NotReturned...)
}

// refuseForced refuses a PUT body giving another value than the one Azure
// keeps at a path of Facts.Forced: no write could make Azure agree, so it
// would be written at every sync.
func refuseForced(f Facts, body map[string]any) error {
	paths := make([]string, 0, len(f.Forced))
	for p := range f.Forced {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		want := f.Forced[p]
		var err error
		walkPath(body, strings.Split(p, "."), nil, func(at string, _ map[string]string, v any) {
			if err == nil && v != nil && !comparison.Matches(want, v) {
				err = fmt.Errorf("%s is %s, but Azure keeps it %s whatever is written: leave it out or set it to %s", at, jsonText(v), jsonText(want), jsonText(want))
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func jsonText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}
