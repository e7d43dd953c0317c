package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// The runtime of the adapters kindgen writes (zz_generated_*.go): their specs are ARM's
// create body with `properties` flattened into each object, as ASO does, so Desired puts
// the flattened fields back under `properties` (armShape says which) and Observe flattens
// the GET body into the status.

// armShape says, for one object of a spec, which of its JSON fields ARM nests under
// `properties` and the shapes of its nested objects (of each element, for lists).
type armShape struct {
	props  []string
	fields map[string]*armShape
	// idRefs: string ARM IDs the spec holds as references, spec JSON name
	// (privateLinkServiceReference) -> ARM's (privateLinkServiceId).
	idRefs map[string]string
	// secrets: write-only values of the resource's own body, by JSON name, held in the
	// spec as Secret references ({name, key}).
	secrets []string
	// identities: ARM's userAssignedIdentities maps (keyed by the identity's ARM ID, empty
	// objects as values), by JSON name, held in the spec as lists of references
	// ([{reference: {armId} | {name}}]), a by-name one a UserAssignedIdentity by default.
	identities []string
	// renames: fields the config renames (api/kinds.yaml, rename), spec JSON name
	// (roleType) -> ARM's (type).
	renames map[string]string
}

// The group and kind of a user-assigned identity named without them.
const (
	identityGroup = "managedidentity.aztenant.io"
	identityKind  = "UserAssignedIdentity"
)

// specBody is a generated spec as an ARM body: its JSON without the fields aztenant adds
// (owner, azureName, operatorSpec; location and tags the adapter sets itself), nested as
// ARM expects.
func specBody(spec any, s *armShape) (map[string]any, error) {
	body, err := specJSON(spec)
	if err != nil {
		return nil, err
	}
	nest(body, s)
	return body, nil
}

// specJSON is a spec's JSON without the fields aztenant adds.
func specJSON(spec any) (map[string]any, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, err
	}
	for _, k := range []string{"owner", "azureName", "operatorSpec", "location", "tags"} {
		delete(body, k)
	}
	return body, nil
}

// specBodyWith is specBody for a spec with references: each is put in ARM's place, its
// ARM ID given or resolved (by Resolve) from the object it names, before the body is
// nested.
func specBodyWith(spec any, s *armShape, group string, resolved map[string]string) (map[string]any, error) {
	body, err := specJSON(spec)
	if err != nil {
		return nil, err
	}
	if s != nil {
		for _, f := range s.secrets {
			if _, ok := body[f]; !ok {
				continue
			}
			v, ok := resolved[secretKey(f)]
			if !ok {
				return nil, fmt.Errorf("%s: its Secret is not read yet", f)
			}
			body[f] = v
		}
	}
	wrapIDRefs(body, s)
	if err := withReferences(body, group, resolved); err != nil {
		return nil, err
	}
	unwrapIDRefs(body, s)
	nest(body, s)
	return body, nil
}

// eachShaped calls fn with m and every nested object of m that s has a shape for.
func eachShaped(m map[string]any, s *armShape, fn func(map[string]any, *armShape)) {
	if s == nil {
		return
	}
	fn(m, s)
	for k, sub := range s.fields {
		switch v := m[k].(type) {
		case map[string]any:
			eachShaped(v, sub, fn)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					eachShaped(em, sub, fn)
				}
			}
		}
	}
}

// wrapIDRefs moves each string-ID reference of a spec to ARM's name, as the reference
// objects ({"reference": ...}) that withReferences puts IDs in, and names the kind of
// user-assigned identities named without one.
func wrapIDRefs(m map[string]any, s *armShape) {
	eachShaped(m, s, func(m map[string]any, s *armShape) {
		for _, f := range s.identities {
			list, _ := m[f].([]any)
			for _, e := range list {
				em, _ := e.(map[string]any)
				ref, _ := em["reference"].(map[string]any)
				if ref == nil || ref["name"] == nil {
					continue
				}
				if ref["kind"] == nil {
					ref["kind"] = identityKind
					if ref["group"] == nil {
						ref["group"] = identityGroup
					}
				}
			}
		}
		for spec, arm := range s.idRefs {
			switch v := m[spec].(type) {
			case map[string]any:
				m[arm] = map[string]any{"reference": v}
			case []any:
				out := make([]any, len(v))
				for i, e := range v {
					out[i] = map[string]any{"reference": e}
				}
				m[arm] = out
			case nil: // a required list left empty marshals as null: nothing to send
			default:
				continue
			}
			delete(m, spec)
		}
	})
}

// unwrapIDRefs turns the {"id": ...} objects withReferences left at string-ID fields into
// the strings ARM expects, and lists of user-assigned identities into ARM's map.
func unwrapIDRefs(m map[string]any, s *armShape) {
	eachShaped(m, s, func(m map[string]any, s *armShape) {
		for _, f := range s.identities {
			list, ok := m[f].([]any)
			if !ok {
				continue
			}
			ids := make(map[string]any, len(list))
			for _, e := range list {
				if em, ok := e.(map[string]any); ok {
					if id, _ := em["id"].(string); id != "" {
						ids[id] = map[string]any{}
					}
				}
			}
			m[f] = ids
		}
		for _, arm := range s.idRefs {
			switch v := m[arm].(type) {
			case map[string]any:
				m[arm] = v["id"]
			case []any:
				for i, e := range v {
					if em, ok := e.(map[string]any); ok {
						v[i] = em["id"]
					}
				}
			}
		}
	})
}

// nest gives renamed fields their ARM names and moves s's properties of m under
// m["properties"], depth first.
func nest(m map[string]any, s *armShape) {
	if s == nil {
		return
	}
	for k, sub := range s.fields {
		switch v := m[k].(type) {
		case map[string]any:
			nest(v, sub)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					nest(em, sub)
				}
			}
		}
	}
	for spec, arm := range s.renames {
		if v, ok := m[spec]; ok {
			m[arm] = v
			delete(m, spec)
		}
	}
	props := map[string]any{}
	for _, k := range s.props {
		if v, ok := m[k]; ok {
			props[k] = v
			delete(m, k)
		}
	}
	if len(props) > 0 {
		m["properties"] = props
	}
}

// observeInto decodes an ARM body, flattened, into a generated status. Fields the status
// does not have are ignored, and so is a value of an unexpected type: Observe reports what
// it can.
func observeInto(actual map[string]any, status any) {
	data, err := json.Marshal(flatten(actual))
	if err != nil {
		return
	}
	_ = json.Unmarshal(data, status)
}

// flatten copies v with every `properties` object merged into its parent (a field of the
// parent wins over one of its properties), as the generated types flatten them.
func flatten(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if k != "properties" {
				out[k] = flatten(e)
			}
		}
		if p, ok := t["properties"].(map[string]any); ok {
			for k, e := range flatten(p).(map[string]any) {
				if _, taken := out[k]; !taken {
					out[k] = e
				}
			}
		} else if p, ok := t["properties"]; ok {
			out["properties"] = p
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = flatten(e)
		}
		return out
	}
	return v
}

// References of generated specs are objects {"reference": {armId | group, kind, name}}
// where ARM expects {"id": ...}. Hooks.Resolve reads the named objects' status.id; Desired
// puts the IDs in place.

// secretKey names a write-only value in Resolve's answer.
func secretKey(field string) string { return "secret/" + field }

// secretRef reads the Secret reference at field of a decoded spec.
func secretRef(spec map[string]any, field string) (azurev1alpha1.SecretKeyReference, bool) {
	m, ok := spec[field].(map[string]any)
	if !ok {
		return azurev1alpha1.SecretKeyReference{}, false
	}
	name, _ := m["name"].(string)
	key, _ := m["key"].(string)
	return azurev1alpha1.SecretKeyReference{Name: name, Key: key}, name != ""
}

// secretReferences names the Secrets a spec's write-only values come from.
func secretReferences(spec any, s *armShape) []reconcilers.Reference {
	if s == nil || len(s.secrets) == 0 {
		return nil
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil
	}
	var v map[string]any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []reconcilers.Reference
	for _, f := range s.secrets {
		if ref, ok := secretRef(v, f); ok {
			out = append(out, reconcilers.Reference{Kind: reconcilers.ReferenceSecret, Name: ref.Name})
		}
	}
	return out
}

// referenceKey names a referenced object in Resolve's answer.
func referenceKey(group, kind, name string) string { return group + "/" + kind + "/" + name }

// eachReference calls fn with every reference object in v (a decoded spec or body) and
// the object holding it.
func eachReference(v any, fn func(holder, ref map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["reference"].(map[string]any); ok && len(t) == 1 {
			fn(t, ref)
			return
		}
		for _, e := range t {
			eachReference(e, fn)
		}
	case []any:
		for _, e := range t {
			eachReference(e, fn)
		}
	}
}

// refTarget is a reference's group, kind and name (group defaulting to the referrer's).
func refTarget(ref map[string]any, group string) (g, kind, name string) {
	g, _ = ref["group"].(string)
	if g == "" {
		g = group
	}
	kind, _ = ref["kind"].(string)
	name, _ = ref["name"].(string)
	return g, kind, name
}

// resolveReferences reads the ARM ID of every object spec refers to by name, in namespace.
// A missing object, or one not yet created in Azure, is an error naming it: the referrer
// waits (ReferenceNotFound) and is looked at again.
func resolveReferences(ctx context.Context, c client.Reader, namespace, group string, spec any, s *armShape) (map[string]string, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	out := map[string]string{}
	if s != nil {
		for _, f := range s.secrets {
			ref, ok := secretRef(v, f)
			if !ok {
				continue
			}
			var sec corev1.Secret
			if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &sec); err != nil {
				if apierrors.IsNotFound(err) {
					return nil, fmt.Errorf("%s: Secret %q does not exist in namespace %s", f, ref.Name, namespace)
				}
				return nil, fmt.Errorf("%s: reading Secret %q: %w", f, ref.Name, err)
			}
			val, ok := sec.Data[ref.Key]
			if !ok {
				return nil, fmt.Errorf("%s: Secret %q has no key %q", f, ref.Name, ref.Key)
			}
			out[secretKey(f)] = string(val)
		}
	}
	wrapIDRefs(v, s)
	var firstErr error
	eachReference(v, func(_, ref map[string]any) {
		g, kind, name := refTarget(ref, group)
		if name == "" || firstErr != nil {
			return
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: g, Version: "v1alpha1", Kind: kind})
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
			if apierrors.IsNotFound(err) {
				firstErr = fmt.Errorf("referenced %s %s not found in namespace %s", kind, name, namespace)
			} else {
				firstErr = fmt.Errorf("referenced %s %s: %w", kind, name, err)
			}
			return
		}
		id, _, _ := unstructured.NestedString(u.Object, "status", "id")
		if id == "" {
			firstErr = fmt.Errorf("referenced %s %s has no ARM ID yet: it is not created in Azure", kind, name)
			return
		}
		out[referenceKey(g, kind, name)] = id
	})
	return out, firstErr
}

// withReferences replaces each reference of body by {"id": its ARM ID}.
func withReferences(body map[string]any, group string, resolved map[string]string) error {
	var firstErr error
	eachReference(body, func(holder, ref map[string]any) {
		id, _ := ref["armId"].(string)
		if id == "" {
			g, kind, name := refTarget(ref, group)
			if id = resolved[referenceKey(g, kind, name)]; id == "" && firstErr == nil {
				firstErr = fmt.Errorf("reference to %s %s is not resolved", kind, name)
			}
		}
		delete(holder, "reference")
		holder["id"] = id
	})
	return firstErr
}

// actionSecrets calls each action (listKeys, listCredentials) and keeps the string values
// of the answers by dotted path: {"primaryMasterKey": ...}, {"passwords": [{"name":
// "password", "value": ...}]} gives "passwords.password.value" (a listed object by its
// name or keyName, else its index). A later action does not overwrite an earlier one's.
func actionSecrets(ctx context.Context, call reconcilers.ActionCaller, actions []string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range actions {
		body, err := call(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		flattenStrings("", body, out)
	}
	return out, nil
}

func flattenStrings(path string, v any, out map[string]string) {
	at := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t := v.(type) {
	case string:
		if _, taken := out[path]; !taken && path != "" {
			out[path] = t
		}
	case map[string]any:
		for k, e := range t {
			flattenStrings(at(k), e, out)
		}
	case []any:
		for i, e := range t {
			label := fmt.Sprint(i)
			if m, ok := e.(map[string]any); ok {
				for _, key := range []string{"name", "keyName"} {
					if n, ok := m[key].(string); ok && n != "" {
						label = n
						break
					}
				}
			}
			flattenStrings(at(label), e, out)
		}
	}
}

// statusStrings reads a status's strings at dotted JSON paths (primaryEndpoints.blob),
// for fixed ConfigMap exports of fields inside its objects (api/kinds.yaml, exports); a
// path the status does not hold (an object not reported yet) reads "".
func statusStrings(status any, paths map[string]string) map[string]string {
	var root any
	if data, err := json.Marshal(status); err == nil {
		_ = json.Unmarshal(data, &root)
	}
	out := make(map[string]string, len(paths))
	for key, path := range paths {
		v := root
		for _, step := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[step]
		}
		out[key], _ = v.(string)
	}
	return out
}

// stringAt is the string at a dotted path of a GET body (properties.powerState.code), ""
// when the path is missing or holds no string: a generated kind's flat status fields
// (api/kinds.yaml, status.fields).
func stringAt(body map[string]any, path string) string {
	var v any = body
	for _, step := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[step]
	}
	s, _ := v.(string)
	return s
}

// uuidARMID is the ARM ID of an extension resource Azure names with a GUID (api/kinds.yaml,
// name.uuid) under its scope parentID: spec.azureName, or without it a UUIDv5, in the
// namespace space (https://aztenant.io/<type>), of the object's namespace, name and scope,
// so the same object always names the same resource and a retry or a restart never
// creates a second.
func uuidARMID(obj azurev1alpha1.Resource, parentID, armType, space string) string {
	name := obj.AzureName()
	if name == "" {
		name = uuid.NewSHA1(uuid.NewSHA1(uuid.NameSpaceURL, []byte(space)),
			[]byte(obj.GetNamespace()+"/"+obj.GetName()+"/"+strings.ToLower(parentID))).String()
	}
	return parentID + "/providers/" + armType + "/" + name
}

// fromConfigKey names a value read from a ConfigMap (api/kinds.yaml, fromConfig) in
// Resolve's answer, by the ARM body path it goes to.
func fromConfigKey(path string) string { return "config/" + path }

// resolveFromConfig reads the ConfigMap keys of a spec's <name>FromConfig fields, by the
// ARM body path each value goes to (properties.principalId), into out. A missing
// ConfigMap, or a key missing or empty, is an error naming the field: the object waits
// and is looked at again.
func resolveFromConfig(ctx context.Context, c client.Reader, namespace string, refs map[string]*azurev1alpha1.ConfigMapReference, out map[string]string) error {
	paths := make([]string, 0, len(refs))
	for p := range refs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		ref := refs[path]
		if ref == nil {
			continue
		}
		field := path[strings.LastIndex(path, ".")+1:] + "FromConfig"
		var cm corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("%s: ConfigMap %q does not exist in namespace %q", field, ref.Name, namespace)
			}
			return fmt.Errorf("%s: reading ConfigMap %q: %w", field, ref.Name, err)
		}
		v := strings.TrimSpace(cm.Data[ref.Key])
		if v == "" {
			return fmt.Errorf("%s: ConfigMap %q in namespace %q has no key %q (or it is empty)", field, ref.Name, namespace, ref.Key)
		}
		out[fromConfigKey(path)] = v
	}
	return nil
}

// fromConfigInto takes each <name>FromConfig (spec JSON name -> ARM body path) out of a
// body and puts the value Resolve read at its path; without it (Desired without resolved
// values) the path keeps what the spec holds.
func fromConfigInto(body map[string]any, resolved map[string]string, fields map[string]string) {
	for spec, path := range fields {
		delete(body, spec)
		v := resolved[fromConfigKey(path)]
		if v == "" {
			continue
		}
		m := body
		steps := strings.Split(path, ".")
		for _, step := range steps[:len(steps)-1] {
			next, _ := m[step].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[step] = next
			}
			m = next
		}
		m[steps[len(steps)-1]] = v
	}
}
