package reconcilers

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// writeOnlyKey keys the digest of an object's write-only values: the UIDs of
// the Secrets the kind reads them from. Status is readable by everyone who
// may view the namespace, Secrets are not; a digest keyed with something only
// Secret readers know (and who can read the password anyway) cannot be used
// to test guesses of a weak password offline. Without readable Secret
// references the object's own UID keys it, which only keeps equal values of
// two objects from looking alike.
func writeOnlyKey(ctx context.Context, r client.Reader, obj azurev1alpha1.Resource, refs []Reference) []byte {
	var uids []string
	for _, ref := range refs {
		if ref.Kind != ReferenceSecret {
			continue
		}
		var s corev1.Secret
		if err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, &s); err == nil {
			uids = append(uids, string(s.UID))
		}
	}
	if len(uids) == 0 {
		return []byte(obj.GetUID())
	}
	slices.Sort(uids)
	return []byte(strings.Join(uids, ","))
}

// writeOnlyHash digests the values at the write-only paths of a PUT body (a
// password resolved from a Secret) with HMAC-SHA256 under key. ARM never
// returns them, so the digest of what was last written, kept in status, is
// how a change is noticed. It is "" when the body holds none of the paths.
func writeOnlyHash(key []byte, desired map[string]any, paths []string) string {
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
	h := hmac.New(sha256.New, key)
	h.Write([]byte("aztenant.io/write-only/v2\x00"))
	h.Write(raw)
	return "hmac-sha256:" + hex.EncodeToString(h.Sum(nil))
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
