package azimport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	neturl "net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/tenancy"
)

// Finding is something of Azure that did not become a manifest as is.
type Finding struct {
	// ID of the Azure resource.
	ID string
	// Message says what happened and what to do.
	Message string
	// Missed: a resource, or a value, the manifests do not carry.
	Missed bool
}

func (f Finding) String() string {
	mark := "note"
	if f.Missed {
		mark = "NOT IMPORTED"
	}
	return fmt.Sprintf("%s: %s: %s", mark, f.ID, f.Message)
}

// Result is the manifests, parents first, and the findings.
type Result struct {
	Objects  []*unstructured.Unstructured
	Findings []Finding
}

// Importer reads Azure with one ARM client.
type Importer struct {
	Client   *arm.Client
	Registry *reconcilers.Registry
	Scheme   *kruntime.Scheme
	// Namespace of the manifests.
	Namespace string

	kinds    map[string]reconcilers.Kind   // lower-case ARM type -> kind
	children map[string][]reconcilers.Kind // lower-case parent type -> child kinds
	objects  map[string]*imported          // lower-case ARM ID -> what it became
	names    map[string]bool               // kind/name taken
	res      Result
}

type imported struct {
	obj  *unstructured.Unstructured
	gk   schema.GroupKind
	kind reconcilers.Kind
}

const roleAssignmentType = "microsoft.authorization/roleassignments"

func (im *Importer) init() {
	if im.kinds != nil {
		return
	}
	im.kinds, im.children = map[string]reconcilers.Kind{}, map[string][]reconcilers.Kind{}
	im.objects, im.names = map[string]*imported{}, map[string]bool{}
	for _, k := range im.Registry.Kinds() {
		t := strings.ToLower(k.Facts().ResourceType)
		im.kinds[t] = k
		if i := strings.LastIndexByte(t, '/'); strings.Count(t, "/") >= 2 {
			im.children[t[:i]] = append(im.children[t[:i]], k)
		}
	}
}

// ResourceGroup imports a resource group, every resource in it with their
// children, and the role assignments made on each.
func (im *Importer) ResourceGroup(ctx context.Context, subscription, name string) (Result, error) {
	im.init()
	rgID := "/subscriptions/" + subscription + "/resourceGroups/" + name
	if err := im.one(ctx, rgID); err != nil {
		return im.res, err
	}
	items, err := im.list(ctx, rgID+"/resources", "2021-04-01")
	if err != nil {
		return im.res, err
	}
	sort.Slice(items, func(i, j int) bool { return str(items[i], "id") < str(items[j], "id") })
	for _, item := range items {
		if err := im.listed(ctx, rgID+"/resources", item); err != nil {
			return im.res, err
		}
	}
	return im.res, nil
}

// IDs imports single resources (with their children and role assignments);
// their owners must be imported with them, or exist, under the names given.
func (im *Importer) IDs(ctx context.Context, ids ...string) (Result, error) {
	im.init()
	for _, id := range ids {
		if err := im.one(ctx, id); err != nil {
			return im.res, err
		}
	}
	return im.res, nil
}

// one imports the resource id, then its children and role assignments.
func (im *Importer) one(ctx context.Context, id string) error {
	p, err := tenancy.ParseARMID(id)
	if err != nil {
		im.missed(id, "not an ARM ID: %v", err)
		return nil
	}
	typ := p.Type
	if typ == "" {
		typ = "Microsoft.Resources/resourceGroups"
	}
	k, ok := im.kinds[strings.ToLower(typ)]
	if !ok {
		im.missed(id, "aztenant has no kind for %s", typ)
		return nil
	}
	body, found, err := im.get(ctx, id, k.Facts().APIVersion)
	switch {
	case err != nil:
		return err
	case !found:
		im.missed(id, "not found in Azure")
		return nil
	case body == nil:
		im.missed(id, "Azure answered a body that is not a JSON object")
		return nil
	}
	if err := im.add(id, k, body); err != nil {
		return err
	}
	for _, ck := range im.children[strings.ToLower(typ)] {
		seg := ck.Facts().ResourceType[strings.LastIndexByte(ck.Facts().ResourceType, '/')+1:]
		items, err := im.list(ctx, id+"/"+seg, ck.Facts().APIVersion)
		if err != nil {
			return err
		}
		for _, item := range items {
			if err := im.listed(ctx, id+"/"+seg, item); err != nil {
				return err
			}
		}
	}
	if strings.EqualFold(typ, "Microsoft.Authorization/roleAssignments") {
		return nil
	}
	if ra, ok := im.kinds[roleAssignmentType]; ok {
		items, err := im.list(ctx, id+"/providers/Microsoft.Authorization/roleAssignments?$filter=atScope()", ra.Facts().APIVersion)
		if err != nil {
			return err
		}
		for _, item := range items {
			props, _ := item["properties"].(map[string]any)
			if scope, _ := props["scope"].(string); !strings.EqualFold(strings.TrimSuffix(scope, "/"), id) {
				continue // inherited from above: imported with its own scope
			}
			raID := str(item, "id")
			if p, err := tenancy.ParseARMID(raID); err != nil || !strings.EqualFold(p.Type, "Microsoft.Authorization/roleAssignments") {
				im.missed(id, "Azure listed a role assignment on it without a role assignment's ID (%s)", describe(item["id"]))
				continue
			}
			if err := im.add(raID, ra, item); err != nil {
				return err
			}
		}
	}
	return nil
}

// listed imports an item Azure listed in collection, by its ID.
func (im *Importer) listed(ctx context.Context, collection string, item map[string]any) error {
	id := str(item, "id")
	if id == "" {
		im.missed(collection, "Azure listed an item without an ID (%s): skipped", describe(item["id"]))
		return nil
	}
	return im.one(ctx, id)
}

func (im *Importer) missed(id, format string, args ...any) {
	im.res.Findings = append(im.res.Findings, Finding{ID: id, Message: fmt.Sprintf(format, args...), Missed: true})
}

func (im *Importer) note(id, format string, args ...any) {
	im.res.Findings = append(im.res.Findings, Finding{ID: id, Message: fmt.Sprintf(format, args...)})
}

// add makes the manifest of one resource.
func (im *Importer) add(id string, k reconcilers.Kind, body map[string]any) error {
	gvk := im.Registry.GroupVersionKind(k)
	p, _ := tenancy.ParseARMID(id)
	azureName := p.Name
	owner, ownerName, err := im.ownerOf(id, k)
	if err != nil {
		im.missed(id, "%v", err)
		return nil
	}
	prefix := ownerName
	if owner != nil && strings.EqualFold(im.ownerType(id), "Microsoft.Resources/resourceGroups") {
		prefix = "" // a resource group's resources keep their own names
	}
	name := im.nameFor(gvk.GroupKind(), prefix, azureName)
	spec := im.specFor(id, gvk, body)
	if owner != nil {
		spec["owner"] = owner
	}
	if !k.Facts().WithParent && (name != azureName || k.Hooks().ARMID != nil) {
		spec["azureName"] = azureName
	}
	u, err := im.decode(gvk, name, spec)
	if err != nil {
		im.missed(id, "does not fit aztenant's %s: %v", gvk.Kind, err)
		return nil
	}
	if k.Facts().WithParent {
		u.SetAnnotations(nil) // made by Azure with its parent: managed without adopt
	}
	for _, w := range k.Facts().WriteOnly {
		im.note(id, "%s is write-only (Azure never returns it) and is not copied: set its spec field to a Secret of your own before applying", w)
	}
	im.objects[strings.ToLower(id)] = &imported{obj: u, gk: gvk.GroupKind(), kind: k}
	im.res.Objects = append(im.res.Objects, u)
	return nil
}

// specFor is the spec of a resource of kind gvk from Azure's answer body, as
// Azure gave it: specOf's shape, fitted to the kind's schema (fit). What does
// not fit is a finding.
func (im *Importer) specFor(id string, gvk schema.GroupVersionKind, body map[string]any) map[string]any {
	spec := specOf(body, func(format string, args ...any) { im.note(id, format, args...) }, func(path, why string) {
		im.missed(id, "%s: %s: not imported, set it before applying", path, why)
	})
	s, err := specSchema(gvk)
	if err != nil {
		im.note(id, "%v: the values are imported as Azure answered them", err)
		return spec
	}
	return fit(spec, s, func(path, why string) { im.missed(id, "%s: %s: not imported, set it before applying", path, why) })
}

// decode makes the manifest of kind gvk named name with spec: decoded into the
// kind's Go type, so what the type does not have drops out.
func (im *Importer) decode(gvk schema.GroupVersionKind, name string, spec map[string]any) (*unstructured.Unstructured, error) {
	src := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
		"metadata": map[string]any{"name": name, "namespace": im.Namespace, "annotations": map[string]any{reconcilers.AnnotationAdopt: "true"}},
		"spec":     spec}
	typed, err := im.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(src)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		return nil, err
	}
	out, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: out}
	u.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// ownerOf links id to the imported object of its kind's owner kind: the nearest
// ancestor in the ARM ID imported as that kind (a blob container's storage
// account, though blobServices/default lies between), or the scope of a role
// assignment.
func (im *Importer) ownerOf(id string, k reconcilers.Kind) (map[string]any, string, error) {
	if strings.EqualFold(k.Facts().ResourceType, "Microsoft.Resources/resourceGroups") {
		return nil, "", nil
	}
	parent := strings.TrimSuffix(id, "/")
	if strings.EqualFold(k.Facts().ResourceType, "Microsoft.Authorization/roleAssignments") {
		i := lastIndexFold(parent, "/providers/Microsoft.Authorization/roleAssignments/")
		if i < 0 {
			return nil, "", fmt.Errorf("not the ID of a role assignment")
		}
		parent = parent[:i]
		if o, ok := im.objects[strings.ToLower(parent)]; ok {
			return map[string]any{"group": o.gk.Group, "kind": o.gk.Kind, "name": o.obj.GetName()}, o.obj.GetName(), nil
		}
		return map[string]any{"armId": parent}, "", nil
	}
	want := k.Facts().OwnerKind
	for _, a := range ancestors(parent) {
		if o, ok := im.objects[strings.ToLower(a)]; ok && (want.Empty() || o.gk == want) {
			return map[string]any{"name": o.obj.GetName()}, o.obj.GetName(), nil
		}
	}
	return nil, "", fmt.Errorf("its owner (a %s) is not among what was imported: import its resource group, or the owner's ID with it", want.Kind)
}

// lastIndexFold is the last index of the ASCII string sub in s, ignoring case
// (strings.ToLower may change a non-ASCII string's length), -1 when none.
func lastIndexFold(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// ancestors are the IDs above id, nearest first: each type/name pair taken off,
// with the providers/<namespace> before it.
func ancestors(id string) []string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	var out []string
	for len(segs) > 2 {
		segs = segs[:len(segs)-2]
		if len(segs) >= 2 && strings.EqualFold(segs[len(segs)-2], "providers") {
			segs = segs[:len(segs)-2]
		}
		if len(segs) >= 2 {
			out = append(out, "/"+strings.Join(segs, "/"))
		}
	}
	return out
}

// ownerType is the ARM type of the object id was linked to, "" when none.
func (im *Importer) ownerType(id string) string {
	for _, a := range ancestors(id) {
		if o, ok := im.objects[strings.ToLower(a)]; ok {
			return o.kind.Facts().ResourceType
		}
	}
	return ""
}

var invalidName = regexp.MustCompile(`[^a-z0-9-]+`)

// nameFor is a DNS-1123 object name, the Azure name where it is one, prefixed by
// the owner's for children (as asoctl names them), unique per kind.
func (im *Importer) nameFor(gk schema.GroupKind, owner, azureName string) string {
	base := strings.ToLower(azureName)
	if owner != "" && !strings.HasPrefix(base, owner) {
		base = owner + "-" + base
	}
	base = strings.Trim(invalidName.ReplaceAllString(base, "-"), "-")
	if len(base) > 63 {
		base = strings.TrimRight(base[:63], "-")
	}
	if base == "" {
		base = "imported"
	}
	name := base
	for i := 2; im.names[gk.String()+"/"+name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	im.names[gk.String()+"/"+name] = true
	return name
}

// specOf is the spec of an ARM body: properties flattened into the top level as
// aztenant's kinds spell them, ARM IDs as references, tags without aztenant's
// markers, a known location by its name (the form aztenant's examples use;
// ARM answers some types' locations by display name). It takes the body as
// Azure gave it: any key may be null, absent or of another JSON type than
// documented (fit then makes the values what the kind's schema takes).
// missed reports what cannot be imported, by its path in the spec.
func specOf(body map[string]any, note func(format string, args ...any), missed func(path, why string)) map[string]any {
	spec := map[string]any{}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys) // one result for a body with a key in two casings: the first in order
	var props any
	seen := map[string]bool{}
	for _, k := range keys {
		v := body[k]
		lk := strings.ToLower(k) // ARM's names are case-insensitive
		if envelope[lk] {
			if seen[lk] {
				continue
			}
			seen[lk] = true
		}
		switch lk {
		case "id", "name", "type", "etag", "systemdata", "managedby":
		case "properties":
			props = v
		case "tags":
			spec["tags"] = tagsOf(v, note, missed)
		case "location":
			spec["location"] = v
			if l, ok := v.(string); ok && azurev1alpha1.KnownLocation(l) {
				spec["location"] = azurev1alpha1.NormalizeLocation(l)
			}
		default:
			spec[k] = v
		}
	}
	switch p := props.(type) {
	case map[string]any:
		for k, v := range p {
			if _, taken := spec[k]; !taken {
				spec[k] = v
			}
		}
	case nil:
	default:
		missed("spec", fmt.Sprintf("Azure answered properties as %s, not an object", describe(p)))
	}
	for k := range spec {
		if strings.EqualFold(k, "owner") || strings.EqualFold(k, "azureName") || strings.EqualFold(k, "operatorSpec") {
			delete(spec, k) // aztenant's own fields: never Azure's values
		}
	}
	return referencesOf(spec).(map[string]any)
}

// envelope are the keys of an ARM body specOf reads itself, in lower case.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "etag": true, "systemdata": true, "managedby": true, "properties": true, "tags": true, "location": true}

// tagsOf is Azure's tags without aztenant's markers; nil when Azure has none
// (absent, null or empty) or answered something other than an object.
func tagsOf(v any, note func(format string, args ...any), missed func(path, why string)) any {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			missed("spec.tags", fmt.Sprintf("Azure answered %s, not an object", describe(v)))
		}
		return nil
	}
	tags := map[string]any{}
	for tk, tv := range m {
		if strings.HasPrefix(strings.ToLower(tk), "aztenant.io") {
			note("tag %s is aztenant's own marker and is not copied", tk)
			continue
		}
		tags[tk] = tv
	}
	if len(tags) == 0 {
		return nil
	}
	return tags
}

// referencesOf rewrites ARM IDs the way aztenant's specs take them: {"id": x}
// as {"reference": {"armId": x}}; fooId as fooReference: {armId} and fooIds as
// fooReferences (each kept under both names: decoding keeps the one the kind
// has); a map keyed by ARM IDs (identity.userAssignedIdentities) as a list of
// references.
func referencesOf(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if id, ok := t["id"].(string); ok && len(t) == 1 && looksLikeID(id) {
			return map[string]any{"reference": map[string]any{"armId": id}}
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = referencesOf(e)
			if k == "userAssignedIdentities" {
				if m, ok := e.(map[string]any); ok {
					var refs []any
					keys := make([]string, 0, len(m))
					for id := range m {
						keys = append(keys, id)
					}
					sort.Strings(keys)
					for _, id := range keys {
						refs = append(refs, map[string]any{"reference": map[string]any{"armId": id}})
					}
					out[k] = refs
				}
			}
			for _, suf := range []string{"Id", "ID", "Ids", "IDs"} {
				base, ok := strings.CutSuffix(k, suf)
				if !ok || base == "" {
					continue
				}
				switch x := e.(type) {
				case string:
					if looksLikeID(x) && len(suf) == 2 {
						out[base+"Reference"] = map[string]any{"armId": x}
					}
				case []any:
					if len(suf) == 3 {
						var refs []any
						for _, s := range x {
							if id, ok := s.(string); ok && looksLikeID(id) {
								refs = append(refs, map[string]any{"armId": id})
							}
						}
						if len(refs) == len(x) && len(refs) > 0 {
							out[base+"References"] = refs
						}
					}
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = referencesOf(e)
		}
		return out
	}
	return v
}

func looksLikeID(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "/subscriptions/") || strings.HasPrefix(l, "/providers/")
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// get reads id: found false when Azure has no such resource, a nil body when
// Azure answered something other than a JSON object (an empty body or null is
// an empty object).
func (im *Importer) get(ctx context.Context, id, apiVersion string) (map[string]any, bool, error) {
	resp, err := im.do(ctx, runtime.JoinPaths(im.Client.Endpoint(), id), apiVersion)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, false, nil
	}
	var body any
	if err := runtime.UnmarshalAsJSON(resp, &body); err != nil {
		return nil, true, nil
	}
	switch b := body.(type) {
	case map[string]any:
		return b, true, nil
	case nil:
		return map[string]any{}, true, nil
	}
	return nil, true, nil
}

// list reads a collection, following nextLink; a collection Azure does not have
// (404) is empty. The pages must stay on the ARM endpoint (a nextLink
// elsewhere would get the user's token), and there are at most maxListPages.
func (im *Importer) list(ctx context.Context, path, apiVersion string) ([]map[string]any, error) {
	path, query, _ := strings.Cut(path, "?")
	url := runtime.JoinPaths(im.Client.Endpoint(), path)
	if query != "" {
		url += "?" + query
	}
	ep, err := neturl.Parse(im.Client.Endpoint())
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for pages := 0; url != ""; pages++ {
		if pages > 0 {
			u, err := neturl.Parse(url)
			if err != nil || !strings.EqualFold(u.Scheme, ep.Scheme) || !strings.EqualFold(u.Host, ep.Host) {
				return nil, fmt.Errorf("list %s: Azure's nextLink leaves the ARM endpoint %s", path, ep.Host)
			}
			if pages >= maxListPages {
				return nil, fmt.Errorf("list %s: more than %d pages", path, maxListPages)
			}
		}
		resp, err := im.do(ctx, url, apiVersion)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusNotFound {
			resp.Body.Close()
			return out, nil
		}
		var page struct {
			Value    any `json:"value"`
			NextLink any `json:"nextLink"`
		}
		err = runtime.UnmarshalAsJSON(resp, &page)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", path, err)
		}
		items, ok := page.Value.([]any)
		if !ok && page.Value != nil {
			im.missed(path, "Azure answered the list's value as %s, not a list: skipped", describe(page.Value))
		}
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = append(out, m)
			} else {
				im.missed(path, "Azure listed %s among the items: skipped", describe(it))
			}
		}
		url, _ = page.NextLink.(string)
		apiVersion = ""
	}
	return out, nil
}

// maxListPages bounds a listing: a service answering nextLink forever must not
// hold the import forever.
const maxListPages = 1000

func (im *Importer) do(ctx context.Context, url, apiVersion string) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, http.MethodGet, url)
	if err != nil {
		return nil, err
	}
	if apiVersion != "" {
		q := req.Raw().URL.Query()
		q.Set("api-version", apiVersion)
		req.Raw().URL.RawQuery = q.Encode()
	}
	resp, err := im.Client.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound {
		defer resp.Body.Close()
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}
