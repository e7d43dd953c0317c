package asoconvert

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Finding is something of an input object that did not carry over as is.
type Finding struct {
	// Object is kind/namespace/name of the input object.
	Object string
	// Path in the input ("spec.foo", "metadata.annotations[x]"); empty for the
	// whole object.
	Path string
	// Message says what happened and what to do.
	Message string
	// Lost: the input said something the output does not (a field, a kind, an
	// annotation with no equivalent). Notes (a mapped annotation) are not lost.
	Lost bool
}

func (f Finding) String() string {
	at := f.Object
	if f.Path != "" {
		at += " " + f.Path
	}
	mark := "note"
	if f.Lost {
		mark = "NOT CONVERTED"
	}
	return fmt.Sprintf("%s: %s: %s", mark, at, f.Message)
}

// Result is the converted objects, in input order, and the findings.
type Result struct {
	Objects  []*unstructured.Unstructured
	Findings []Finding
}

// Lost reports whether any finding lost something of the input.
func (r Result) Lost() bool {
	for _, f := range r.Findings {
		if f.Lost {
			return true
		}
	}
	return false
}

const (
	asoGroupSuffix = ".azure.com"
	groupSuffix    = ".aztenant.io"
	version        = "v1alpha1"
	asoAnnotations = "serviceoperator.azure.com/"
)

// Group maps an ASO API group to aztenant's: network.azure.com ->
// network.aztenant.io, network.frontdoor.azure.com ->
// network.frontdoor.aztenant.io, as every group is named (api/kinds.yaml).
func Group(aso string) (string, bool) {
	g, ok := strings.CutSuffix(aso, asoGroupSuffix)
	if !ok || g == "" || strings.HasPrefix(g, ".") || strings.HasSuffix(g, ".") || strings.Contains(g, "..") {
		return "", false
	}
	return g + groupSuffix, true
}

// Convert converts docs with the kinds scheme knows. Objects outside ASO's groups
// (Secrets, ConfigMaps, Namespaces) pass unchanged.
func Convert(docs []*unstructured.Unstructured, scheme *runtime.Scheme) Result {
	var res Result
	owners := map[string]string{} // kind/namespace/name -> spec.owner.name
	for _, in := range docs {
		if o, found, _ := unstructured.NestedString(in.Object, "spec", "owner", "name"); found {
			owners[in.GetKind()+"/"+in.GetNamespace()+"/"+in.GetName()] = o
		}
	}
	for _, in := range docs {
		in = in.DeepCopy() // reparent edits it
		reparent(in, owners, &res.Findings)
		out, findings := convertOne(in, scheme)
		res.Findings = append(res.Findings, findings...)
		if out != nil {
			res.Objects = append(res.Objects, out)
		}
	}
	return res
}

func convertOne(in *unstructured.Unstructured, scheme *runtime.Scheme) (*unstructured.Unstructured, []Finding) {
	gvk := in.GroupVersionKind()
	if !strings.HasSuffix(gvk.Group, asoGroupSuffix) {
		return in.DeepCopy(), nil
	}
	name := gvk.Kind + "/" + in.GetName()
	if ns := in.GetNamespace(); ns != "" {
		name = gvk.Kind + "/" + ns + "/" + in.GetName()
	}
	var fs []Finding
	lost := func(path, format string, args ...any) {
		fs = append(fs, Finding{Object: name, Path: path, Message: fmt.Sprintf(format, args...), Lost: true})
	}
	note := func(path, format string, args ...any) {
		fs = append(fs, Finding{Object: name, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	group, ok := Group(gvk.Group)
	target := schema.GroupVersionKind{Group: group, Version: version, Kind: gvk.Kind}
	if !ok || !scheme.Recognizes(target) {
		lost("", "aztenant has no %s kind in group %s; the object is not in the output", gvk.Kind, orUnknown(group))
		return nil, fs
	}

	obj := in.DeepCopy().Object
	spec, _ := obj["spec"].(map[string]any)
	mapReferenceGroups(spec)
	meta := map[string]any{"name": in.GetName()}
	if ns := in.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	if l := in.GetLabels(); len(l) > 0 {
		meta["labels"] = toAny(l)
	}
	if a := convertAnnotations(in.GetAnnotations(), lost, note); len(a) > 0 {
		meta["annotations"] = toAny(a)
	}
	if len(in.GetOwnerReferences()) > 0 {
		note("metadata.ownerReferences", "dropped: they name objects by UID, and aztenant sets its own from spec.owner")
	}
	if len(in.GetFinalizers()) > 0 {
		note("metadata.finalizers", "dropped: aztenant adds its own finalizer")
	}
	if _, has := obj["status"]; has {
		note("status", "dropped: status is the operator's")
	}
	src := map[string]any{"apiVersion": target.GroupVersion().String(), "kind": gvk.Kind, "metadata": meta}
	if spec != nil {
		src["spec"] = spec
	}

	// Through aztenant's Go type: what it prints is what aztenant reads.
	typed, err := scheme.New(target)
	if err != nil {
		lost("", "%v", err)
		return nil, fs
	}
	raw, _ := json.Marshal(src)
	if err := json.Unmarshal(raw, typed); err != nil {
		lost("spec", "does not fit aztenant's %s: %v; the object is not in the output", gvk.Kind, err)
		return nil, fs
	}
	back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		lost("", "%v", err)
		return nil, fs
	}
	out := &unstructured.Unstructured{Object: back}
	out.SetGroupVersionKind(target)
	unstructured.RemoveNestedField(out.Object, "status")
	unstructured.RemoveNestedField(out.Object, "metadata", "creationTimestamp")
	var missing []string
	missingPaths("spec", spec, out.Object["spec"], &missing)
	for _, p := range missing {
		lost(p, "aztenant's %s has no such field; it is not in the output", gvk.Kind)
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	return out, fs
}

// reownedKinds are kinds whose owner differs between ASO and aztenant: ASO puts a
// blob container under the account's StorageAccountsBlobService object,
// aztenant under the StorageAccount itself (the one blob service is implied).
var reownedKinds = map[string]string{"StorageAccountsBlobServicesContainer": "StorageAccountsBlobService"}

// reparent points such an object's owner at its ASO owner's owner, found among
// the input's objects; without it, the owner cannot be known and that is lost.
func reparent(in *unstructured.Unstructured, owners map[string]string, fs *[]Finding) {
	via, ok := reownedKinds[in.GetKind()]
	if !ok || !strings.HasSuffix(in.GroupVersionKind().Group, asoGroupSuffix) {
		return
	}
	name, found, _ := unstructured.NestedString(in.Object, "spec", "owner", "name")
	if !found {
		return
	}
	obj := in.GetKind() + "/" + in.GetNamespace() + "/" + in.GetName()
	if grand, ok := owners[via+"/"+in.GetNamespace()+"/"+name]; ok {
		_ = unstructured.SetNestedField(in.Object, grand, "spec", "owner", "name")
		*fs = append(*fs, Finding{Object: obj, Path: "spec.owner.name", Message: fmt.Sprintf("%s %q becomes its owner %q: aztenant's %s is owned by the account, not by its %s", via, name, grand, in.GetKind(), via)})
		return
	}
	*fs = append(*fs, Finding{Object: obj, Path: "spec.owner.name", Lost: true,
		Message: fmt.Sprintf("names ASO's %s %q, which is not among the input: aztenant's %s is owned by the StorageAccount; set spec.owner.name to the account's name", via, name, in.GetKind())})
}

func orUnknown(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// mapReferenceGroups rewrites the group of every reference by kind and name
// ({group: network.azure.com, kind, name}) to aztenant's.
func mapReferenceGroups(v any) {
	switch t := v.(type) {
	case map[string]any:
		if g, ok := t["group"].(string); ok {
			if _, hasKind := t["kind"]; hasKind {
				if mapped, ok := Group(g); ok {
					t["group"] = mapped
				}
			}
		}
		for _, e := range t {
			mapReferenceGroups(e)
		}
	case []any:
		for _, e := range t {
			mapReferenceGroups(e)
		}
	}
}

// convertAnnotations maps ASO's annotations and keeps the others.
func convertAnnotations(in map[string]string, lost, note func(path, format string, args ...any)) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		path := "metadata.annotations[" + k + "]"
		if !strings.HasPrefix(k, asoAnnotations) {
			out[k] = v
			continue
		}
		switch strings.TrimPrefix(k, asoAnnotations) {
		case "reconcile-policy":
			switch v {
			case "manage", "detach-on-delete":
				out["aztenant.io/reconcile-policy"] = v
			case "skip":
				out["aztenant.io/reconcile-policy"] = "observe"
				note(path, "skip becomes aztenant.io/reconcile-policy: observe (ASO's skip still reads the resource; aztenant's skip reads nothing)")
			default:
				lost(path, "%q is not a reconcile policy (ASO would manage); set aztenant.io/reconcile-policy yourself", v)
			}
		case "credential-from":
			lost(path, "aztenant never reads credentials from a Secret (%q): a resource acts as its namespace's Identity; have the platform team give the namespace an Identity for that principal (the annotation aztenant.io/identity names one other than \"default\")", v)
		case "resource-id":
			out["aztenant.io/adopt"] = "true"
			note(path, "the resource exists in Azure (%s): aztenant.io/adopt: \"true\" added, so aztenant takes it over instead of refusing it", v)
		case "poller-resume-token", "operator-namespace", "latest-reconciled-generation":
			note(path, "dropped: Azure Service Operator's own state")
		default:
			lost(path, "aztenant has no equivalent")
		}
	}
	return out
}

// missingPaths lists the paths of in that out lacks. A zero value (false, 0,
// "", empty) that out omits is not missing: aztenant's field omits it too.
func missingPaths(path string, in, out any, acc *[]string) {
	switch t := in.(type) {
	case map[string]any:
		o, _ := out.(map[string]any)
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, p := range keys {
			ov, has := o[p]
			if !has {
				if !zero(t[p]) {
					*acc = append(*acc, path+"."+p)
				}
				continue
			}
			missingPaths(path+"."+p, t[p], ov, acc)
		}
	case []any:
		o, _ := out.([]any)
		for i, e := range t {
			if i >= len(o) {
				*acc = append(*acc, fmt.Sprintf("%s[%d]", path, i))
				continue
			}
			missingPaths(fmt.Sprintf("%s[%d]", path, i), e, o[i], acc)
		}
	}
}

func zero(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice:
		return rv.Len() == 0
	}
	return rv.IsZero()
}
