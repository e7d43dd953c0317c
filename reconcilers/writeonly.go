package reconcilers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// writeOnlyHash digests the values at the write-only paths of a PUT body (a
// password resolved from a Secret). ARM never returns them, so the digest of
// what was last written, kept in status, is how a change is noticed. The
// object's UID salts it, so equal passwords of two objects do not look alike.
// It is "" when the body holds none of the paths.
func writeOnlyHash(obj azurev1alpha1.Resource, desired map[string]any, paths []string) string {
	values := map[string]any{}
	for _, p := range paths {
		if v, ok := valueAt(desired, p); ok {
			values[p] = v
		}
	}
	if len(values) == 0 {
		return ""
	}
	raw, err := json.Marshal(values) // map keys sorted: the same values give the same bytes
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte("aztenant.io/write-only/v1\x00"))
	h.Write([]byte(obj.GetUID()))
	h.Write([]byte{0})
	h.Write(raw)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// writeOnlyPaths lists the write-only paths present in the body, for messages
// that say what is written without showing it.
func writeOnlyPaths(desired map[string]any, paths []string) string {
	var present []string
	for _, p := range paths {
		if _, ok := valueAt(desired, p); ok {
			present = append(present, p)
		}
	}
	return strings.Join(present, ", ")
}

// valueAt reads a dotted path of nested objects.
func valueAt(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}
