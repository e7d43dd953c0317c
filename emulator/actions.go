package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
)

// secretActions serves generated kinds' secret actions (listKeys, listCredentials): each
// answer is the SDK response type's shape kindgen wrote (zz_generated_types.go), its
// secrets made up per resource and kept, so a second call answers the same keys.
func secretActions(answers map[string]string) map[string]actionFunc {
	out := map[string]actionFunc{}
	for name, tmpl := range answers {
		out[name] = func(e *Emulator, r *resource, _ map[string]any) (int, any, *apiError) {
			var v any
			if err := json.Unmarshal([]byte(tmpl), &v); err != nil {
				return 0, nil, armErr(http.StatusInternalServerError, "InternalServerError", "bad answer template for %s", name)
			}
			if r.secrets == nil {
				r.secrets = map[string]string{}
			}
			return http.StatusOK, fillSecrets(r, name, v), nil
		}
	}
	return out
}

// secretMark is kindgen's placeholder for a secret in an answer template.
const secretMark = "\x00secret"

func fillSecrets(r *resource, path string, v any) any {
	switch t := v.(type) {
	case string:
		if t != secretMark {
			return t
		}
		key := strings.ToLower(path)
		if r.secrets[key] == "" {
			r.secrets[key] = randomKey(64)
		}
		return r.secrets[key]
	case map[string]any:
		for k, e := range t {
			t[k] = fillSecrets(r, path+"."+k, e)
		}
	case []any:
		for i, e := range t {
			t[i] = fillSecrets(r, path+"."+string(rune('0'+i)), e)
		}
	}
	return v
}
