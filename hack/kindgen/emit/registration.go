package emit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gobuffalo/flect"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

const apiImport = "github.com/aztenant/aztenant/api/"

// adapterFile is a kind's reconcilers.Kind: its Facts (ARM type, api-version, owner,
// write-only and carried paths), its Hooks (location, references resolved, Secrets
// named), Desired (the spec with ARM's properties put back in place) and Observe (the
// read-only fields into status).
func adapterFile(k *Kind) string {
	var b strings.Builder
	a, n := k.Adapter, k.Kind.Kind
	obj := k.Pkg + "." + n
	shape := lowerFirst0(a) + "Shape"
	b.WriteString("package kinds\n\nimport (\n")
	switch {
	case k.types.resolves() || len(k.types.fromConfig) > 0:
		b.WriteString("\t\"context\"\n\n\t\"sigs.k8s.io/controller-runtime/pkg/client\"\n\n")
	case len(k.secretActions()) > 0 && len(k.secretExports) == 0:
		b.WriteString("\t\"context\"\n\n")
	}
	b.WriteString("\tazurev1alpha1 \"" + apiImport + "azure/v1alpha1\"\n")
	fmt.Fprintf(&b, "\t%s \"%s%s/v1alpha1\"\n", k.Pkg, apiImport, k.Group.Dir())
	if k.Owner == nil && !k.Subscription && !k.Extension {
		b.WriteString("\tresourcesv1alpha1 \"" + apiImport + "resources/v1alpha1\"\n")
	}
	b.WriteString("\t\"github.com/aztenant/aztenant/reconcilers\"\n")
	if k.Extension {
		b.WriteString("\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n")
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "// %s adapts %s (%s %s).\ntype %s struct{}\n\n", a, k.ARMType, shortModule(k.Module.Path), k.Client, a)
	fmt.Fprintf(&b, "var _ reconcilers.Kind = %s{}\n\n", a)
	fmt.Fprintf(&b, "func (%s) New() azurev1alpha1.Resource { return &%s{} }\n\n", a, obj)

	ownerGK := "resourcesv1alpha1.ResourceGroupGroupKind"
	if k.Owner != nil {
		ownerGK = k.Owner.groupKindExpr()
	}
	facts := []string{fmt.Sprintf("ResourceType: %q", k.ARMType), fmt.Sprintf("APIVersion: %q", k.APIVersion), "OwnerKind: " + ownerGK}
	var doc []string
	if k.Subscription {
		doc = append(doc, "the parent is the subscription of the namespace's Identity (no OwnerKind)")
		facts = facts[:2]
	}
	if k.Extension {
		// An extension resource: its owner may be any kind of the config's extension.owners
		// (spec.owner.group and kind), OwnerKind the default; the generic reconciler reads
		// the object's own from OwnerGroupKind.
		var gks []string
		for _, o := range k.Kind.Extension.Owners {
			gks = append(gks, fmt.Sprintf("{Group: %q, Kind: %q}", o.Group.Aztenant, o.Kind))
		}
		doc = append(doc, "an extension resource: its scope (spec.owner) is any ARM ID, or an object of one of\n// OwnerKinds, OwnerKind when it names no group and kind")
		facts[2] = "OwnerKind: schema.GroupKind" + gks[0]
		facts = append(facts, "OwnerKinds: []schema.GroupKind{\n\t\t\t"+strings.Join(gks, ",\n\t\t\t")+",\n\t\t}")
	}
	if len(k.types.writeOnly) > 0 {
		doc = append(doc, "the write-only values, which ARM never returns, are not compared")
		facts = append(facts, fmt.Sprintf("WriteOnly: %#v", k.types.writeOnly))
	}
	if len(k.types.carried) > 0 {
		doc = append(doc, "the child kinds' collections, left out of the spec, are carried from Azure into every PUT,\n// which would otherwise delete them")
		facts = append(facts, fmt.Sprintf("CarriedOnPut: %#v", k.types.carried))
	}
	if k.Delete == nil {
		doc = append(doc, "Azure creates the resource with its parent and has no DELETE for it")
		facts = append(facts, "WithParent: true")
	}
	if len(k.names) > 0 {
		doc = append(doc, "the names Azure turns into resources or destinations are bounded by the Tenant")
		facts = append(facts, namesLiteral(k.names))
	}
	if len(k.answered) > 0 {
		doc = append(doc, "where Azure answers a write in its own way, its answer is compared as it means (api/kinds.yaml, answered:)")
		facts = append(facts, answeredFacts(k.answered)...)
	}
	if len(doc) > 0 {
		fmt.Fprintf(&b, "// Facts: %s.\n", strings.Join(doc, ";\n// "))
	}
	fmt.Fprintf(&b, "func (%s) Facts() reconcilers.Facts {\n\treturn reconcilers.Facts{\n\t\t%s,\n\t}\n}\n\n", a, strings.Join(facts, ",\n\t\t"))

	var hooks []string
	if k.uuidName() {
		hooks = append(hooks, fmt.Sprintf("// The %s under its scope; without spec.azureName its name is a UUIDv5 of the\n\t\t// object's namespace, name and scope, so a retry or a restart never creates a second.\n\t\tARMID: func(obj azurev1alpha1.Resource, parentID string) string {\n\t\t\treturn uuidARMID(obj, parentID, %q, %q)\n\t\t}",
			nameNoun(k.ARMType), k.ARMType, "https://aztenant.io/"+strings.ToLower(k.ARMType[strings.LastIndex(k.ARMType, "/")+1:])))
	}
	if k.loc != nil {
		hooks = append(hooks, fmt.Sprintf("// The spec's location.\n\t\tLocation: func(obj azurev1alpha1.Resource) string {\n\t\t\treturn armLocation(obj.(*%s).Spec.Location)\n\t\t}", obj))
	}
	var fromConfig []string // path: x.Spec.<Go name>, as Resolve's and Desired's literal
	for _, r := range k.types.fromConfig {
		fromConfig = append(fromConfig, fmt.Sprintf("%q: x.Spec.%s", r.path, r.goName))
	}
	fromConfigs := "map[string]*azurev1alpha1.ConfigMapReference{" + strings.Join(fromConfig, ", ") + "}"
	switch {
	case k.types.resolves() && len(fromConfig) > 0:
		hooks = append(hooks, fmt.Sprintf("// The ARM IDs of the objects the spec refers to by name, the values of its Secret\n\t\t// references and of its ConfigMap keys (fromConfig).\n\t\tResolve: func(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {\n\t\t\tx := obj.(*%s)\n\t\t\tout, err := resolveReferences(ctx, c, obj.GetNamespace(), %s.GroupVersion.Group, &x.Spec, %s)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\treturn out, resolveFromConfig(ctx, c, obj.GetNamespace(), %s, out)\n\t\t}", obj, k.Pkg, shape, fromConfigs))
	case k.types.resolves():
		hooks = append(hooks, fmt.Sprintf("// The ARM IDs of the objects the spec refers to by name, and the values of its Secret references.\n\t\tResolve: func(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {\n\t\t\treturn resolveReferences(ctx, c, obj.GetNamespace(), %s.GroupVersion.Group, &obj.(*%s).Spec, %s)\n\t\t}", k.Pkg, obj, shape))
	case len(fromConfig) > 0:
		hooks = append(hooks, fmt.Sprintf("// The values of the spec's ConfigMap keys (fromConfig).\n\t\tResolve: func(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {\n\t\t\tx := obj.(*%s)\n\t\t\tout := map[string]string{}\n\t\t\treturn out, resolveFromConfig(ctx, c, obj.GetNamespace(), %s, out)\n\t\t}", obj, fromConfigs))
	}
	if len(k.types.writeOnly) > 0 {
		hooks = append(hooks, fmt.Sprintf("// The Secrets of the write-only values: a changed one is written again.\n\t\tReferences: func(obj azurev1alpha1.Resource) []reconcilers.Reference {\n\t\t\treturn secretReferences(&obj.(*%s).Spec, %s)\n\t\t}", obj, shape))
	}
	if len(k.secretExports) > 0 {
		var dests []string
		for _, x := range k.secretExports {
			dests = append(dests, fmt.Sprintf("%q: s.%s", x.name, x.goName))
		}
		// No Secrets hook: the values are the overlay's (api/kinds.yaml, exports.secrets), and
		// checkKind refuses SecretDestinations without it when the kind is registered.
		hooks = append(hooks,
			fmt.Sprintf("// Where spec.operatorSpec.secrets sends the fixed secret outputs (api/kinds.yaml, exports);\n\t\t// their values are the overlay's Secrets hook (%s_overlay.go).\n\t\tSecretDestinations: func(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination {\n\t\t\tx := obj.(*%s)\n\t\t\tif x.Spec.OperatorSpec == nil || x.Spec.OperatorSpec.Secrets == nil {\n\t\t\t\treturn nil\n\t\t\t}\n\t\t\ts := x.Spec.OperatorSpec.Secrets\n\t\t\treturn map[string]*azurev1alpha1.SecretDestination{%s}\n\t\t}", strings.ToLower(k.Kind.Kind), obj, strings.Join(dests, ", ")))
	} else if acts := k.secretActions(); len(acts) > 0 {
		var names []string
		for _, op := range acts {
			names = append(names, op.Name)
		}
		hooks = append(hooks, fmt.Sprintf("// No fixed secret exports: spec.operatorSpec.secretExpressions read secret.<name>.\n\t\tSecretDestinations: func(azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination { return nil }"),
			fmt.Sprintf("// The string values Azure answers to %s, by dotted path (listed keys by their name).\n\t\tSecrets: func(ctx context.Context, call reconcilers.ActionCaller, _ azurev1alpha1.Resource) (map[string]string, error) {\n\t\t\treturn actionSecrets(ctx, call, %#v)\n\t\t}", strings.Join(names, ", "), names))
	}
	if len(k.exports) > 0 {
		var dests, values, paths []string
		nested := false
		for _, x := range k.exports {
			dests = append(dests, fmt.Sprintf("%q: cm.%s", x.name, x.goName))
			values = append(values, fmt.Sprintf("%q: x.Status.%s", x.name, x.status))
			paths = append(paths, fmt.Sprintf("%q: %q", x.name, x.path))
			nested = nested || strings.Contains(x.path, ".")
		}
		valuesOf := fmt.Sprintf("x := obj.(*%s)\n\t\t\treturn map[string]string{%s}", obj, strings.Join(values, ", "))
		if nested {
			// Inside objects of the status, which may be unset: read by JSON path.
			valuesOf = fmt.Sprintf("return statusStrings(obj.(*%s).Status, map[string]string{%s})", obj, strings.Join(paths, ", "))
		}
		hooks = append(hooks,
			fmt.Sprintf("// Where spec.operatorSpec.configMaps sends the fixed outputs (api/kinds.yaml, exports).\n\t\tConfigMapDestinations: func(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {\n\t\t\tx := obj.(*%s)\n\t\t\tif x.Spec.OperatorSpec == nil || x.Spec.OperatorSpec.ConfigMaps == nil {\n\t\t\t\treturn nil\n\t\t\t}\n\t\t\tcm := x.Spec.OperatorSpec.ConfigMaps\n\t\t\treturn map[string]*azurev1alpha1.ConfigMapDestination{%s}\n\t\t}", obj, strings.Join(dests, ", ")),
			fmt.Sprintf("// The fixed outputs, from the status.\n\t\tConfigMapValues: func(obj azurev1alpha1.Resource) map[string]string {\n\t\t\t%s\n\t\t}", valuesOf))
	}
	if len(hooks) == 0 {
		fmt.Fprintf(&b, "func (%s) Hooks() reconcilers.Hooks { return reconcilers.Hooks{} }\n\n", a)
	} else {
		fmt.Fprintf(&b, "func (%s) Hooks() reconcilers.Hooks {\n\treturn reconcilers.Hooks{\n\t\t%s,\n\t}\n}\n\n", a, strings.Join(hooks, ",\n\t\t"))
	}

	if k.types.resolves() {
		fmt.Fprintf(&b, "// Desired is the spec as ARM's PUT body, with the references Resolve resolved (without them,\n// only those by ARM ID work).\nfunc (%s) Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {\n\tx := obj.(*%s)\n", a, obj)
		fmt.Fprintf(&b, "\tbody, err := specBodyWith(&x.Spec, %s, %s.GroupVersion.Group, resolved)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n", shape, k.Pkg)
	} else {
		resolved := "_"
		if len(k.types.fromConfig) > 0 {
			resolved = "resolved"
		}
		fmt.Fprintf(&b, "// Desired is the spec as ARM's PUT body.\nfunc (%s) Desired(obj azurev1alpha1.Resource, %s map[string]string) (map[string]any, error) {\n\tx := obj.(*%s)\n", a, resolved, obj)
		fmt.Fprintf(&b, "\tbody, err := specBody(&x.Spec, %s)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n", shape)
	}
	if k.loc != nil {
		b.WriteString("\tif x.Spec.Location != \"\" {\n\t\tbody[\"location\"] = armLocation(x.Spec.Location)\n\t}\n")
	}
	if k.tags {
		b.WriteString("\tbody[\"tags\"] = putTags(x.Spec.Tags)\n")
	}
	if len(k.types.fromConfig) > 0 {
		var fields []string
		for _, r := range k.types.fromConfig {
			fields = append(fields, fmt.Sprintf("%q: %q", r.json, r.path))
		}
		fmt.Fprintf(&b, "\t// The values read from ConfigMaps (fromConfig), at ARM's paths.\n\tfromConfigInto(body, resolved, map[string]string{%s})\n", strings.Join(fields, ", "))
	}
	if len(k.types.handRefs) > 0 {
		var names []string
		for _, r := range k.types.handRefs {
			names = append(names, fmt.Sprintf("%s (%s)", r.json, r.path))
		}
		fmt.Fprintf(&b, "\t// Held in types written by hand (referenceType), left out: the overlay's Desired puts\n\t// ARM's values in: %s.\n", strings.Join(names, ", "))
		for _, r := range k.types.handRefs {
			fmt.Fprintf(&b, "\tdelete(body, %q)\n", r.json)
		}
	}
	b.WriteString("\treturn body, nil\n}\n\n")
	if len(k.types.handRefs) > 0 {
		fmt.Fprintf(&b, "// needsOverlayDesired: the body lacks ARM's values of the references held in types\n// written by hand; checkOverlays refuses the kind without an overlay setting Desired.\nfunc (%s) needsOverlayDesired() {}\n\n", a)
	}
	fmt.Fprintf(&b, "// Observe copies the read-only fields of a GET body into status.\nfunc (%s) Observe(obj azurev1alpha1.Resource, actual map[string]any) {\n\tx := obj.(*%s)\n", a, obj)
	fmt.Fprintf(&b, "\tcommon := x.Status.ResourceStatus\n\tx.Status = %s.%sStatus{}\n\tobserveInto(actual, &x.Status)\n", k.Pkg, n)
	for _, f := range k.stat {
		if f.flatPath != "" {
			// The config's flat status fields (api/kinds.yaml, status.fields).
			fmt.Fprintf(&b, "\tx.Status.%s = stringAt(actual, %q)\n", f.Name, f.flatPath)
		}
	}
	b.WriteString("\tx.Status.ResourceStatus = common\n}\n\n")
	fmt.Fprintf(&b, "// %sShape says which spec fields ARM nests under properties.\n", lowerFirst0(a))
	if k.shape.empty() {
		fmt.Fprintf(&b, "var %sShape *armShape\n", lowerFirst0(a))
	} else {
		fmt.Fprintf(&b, "var %sShape = %s\n", lowerFirst0(a), k.shape.literal())
	}
	return b.String()
}

// parentOf is the ARM type of a kind's parent, for comments: (any scope) for an extension
// resource.
func parentOf(k *Kind) string {
	if k.Extension {
		return "(any scope)"
	}
	return k.Kind.Owner
}

func lowerFirst0(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// groupFile is a generated group's package doc, GroupVersion and scheme registration.
func groupFile(kinds []*Kind) string {
	g := kinds[0].Group
	var names []string
	for _, k := range kinds {
		names = append(names, k.Kind.Kind)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Package v1alpha1 holds the %s API, generated by kindgen from %s: %s.\n//\n// +kubebuilder:object:generate=true\n// +groupName=%s\npackage v1alpha1\n\n", g.Aztenant, shortModule(kinds[0].Module.Path), strings.Join(names, ", "), g.Aztenant)
	b.WriteString("import (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\n")
	fmt.Fprintf(&b, "// GroupVersion is the API group and version of this package.\nvar GroupVersion = schema.GroupVersion{Group: %q, Version: \"v1alpha1\"}\n\n", g.Aztenant)
	b.WriteString("var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {\n\ts.AddKnownTypes(GroupVersion,\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t\t&%s{}, &%sList{},\n", n, n)
	}
	b.WriteString("\t)\n\tmetav1.AddToGroupVersion(s, GroupVersion)\n\treturn nil\n})\n\n// AddToScheme adds this group's types to a scheme.\nvar AddToScheme = schemeBuilder.AddToScheme\n")
	return b.String()
}

// handGroupFile registers the generated kinds of a group written by hand (its
// groupversion_info.go calls addGeneratedKinds).
func handGroupFile(kinds []*Kind) string {
	var b strings.Builder
	b.WriteString("package v1alpha1\n\nimport \"k8s.io/apimachinery/pkg/runtime\"\n\n")
	b.WriteString("// addGeneratedKinds registers the kinds kindgen writes into this group.\nfunc addGeneratedKinds(s *runtime.Scheme) {\n\ts.AddKnownTypes(GroupVersion,\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "\t\t&%s{}, &%sList{},\n", k.Kind.Kind, k.Kind.Kind)
	}
	b.WriteString("\t)\n}\n")
	return b.String()
}

func schemeFile(order []string, groups map[string][]*Kind) string {
	var b strings.Builder
	b.WriteString("package api\n\nimport (\n\t\"k8s.io/apimachinery/pkg/runtime\"\n\n")
	for _, g := range order {
		fmt.Fprintf(&b, "\t%s \"%s%s/v1alpha1\"\n", groups[g][0].Pkg, apiImport, groups[g][0].Group.Dir())
	}
	b.WriteString(")\n\n// generatedGroups are the API groups kindgen writes (api/kinds.yaml).\nvar generatedGroups = runtime.SchemeBuilder{\n")
	for _, g := range order {
		fmt.Fprintf(&b, "\t%s.AddToScheme,\n", groups[g][0].Pkg)
	}
	b.WriteString("}\n")
	return b.String()
}

func allFile(kinds []*Kind) string {
	var b strings.Builder
	b.WriteString("package kinds\n\nimport (\n")
	seen := map[string]bool{}
	var imports []string
	for _, k := range kinds {
		if !seen[k.Pkg] {
			seen[k.Pkg] = true
			imports = append(imports, fmt.Sprintf("\t%s \"%s%s/v1alpha1\"\n", k.Pkg, apiImport, k.Group.Dir()))
		}
	}
	sort.Strings(imports)
	b.WriteString(strings.Join(imports, ""))
	b.WriteString(")\n\n// generated is every kind kindgen writes, by GroupKind, parents before children: Generated\n// adds each one's overlay (overlay.go).\nvar generated = []generatedKind{\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "\t{%s, %s{}},\n", k.groupKindExpr(), k.Adapter)
	}
	b.WriteString("}\n")
	return b.String()
}

func rbacFile(order []string, groups map[string][]*Kind) string {
	var gs []string
	for _, g := range order {
		gs = append(gs, groups[g][0].Group.Aztenant)
	}
	all := strings.Join(gs, ";")
	var b strings.Builder
	b.WriteString("package kinds\n\n// The operator's permissions for the generated kinds, as reconcilers/setup.go grants\n// them for the hand-written ones: read, watch and finalize the resources, report status,\n// set owner references on exports.\n//\n")
	fmt.Fprintf(&b, "// +kubebuilder:rbac:groups=%s,resources=*,verbs=get;list;watch;patch;update\n", all)
	fmt.Fprintf(&b, "// +kubebuilder:rbac:groups=%s,resources=*/status,verbs=get;patch;update\n", all)
	fmt.Fprintf(&b, "// +kubebuilder:rbac:groups=%s,resources=*/finalizers,verbs=update\n", all)
	return b.String()
}

// plural is the resource name controller-gen gives a kind: flect's plural,
// lower case ("WorkspacesData" is "workspacesdata").
func plural(kind string) string { return strings.ToLower(flect.Pluralize(kind)) }

func userRolesFile(order []string, groups map[string][]*Kind) []byte {
	var b strings.Builder
	b.WriteString("# Code generated by kindgen. DO NOT EDIT.\n# The generated kinds' resources by group, merged into the user roles (templates/user-roles.yaml).\n")
	for _, g := range order {
		var rs []string
		for _, k := range groups[g] {
			rs = append(rs, fmt.Sprintf("%q", plural(k.Kind.Kind)))
		}
		fmt.Fprintf(&b, "%s: [%s]\n", groups[g][0].Group.Aztenant, strings.Join(rs, ", "))
	}
	return []byte(b.String())
}

// emulatorFile is each kind's facts for the emulator: ARM type, api-versions and how
// create, update and delete answer (the SDK's poller shape), served generically.
func emulatorFile(kinds []*Kind) string {
	var b strings.Builder
	b.WriteString("package emulator\n\n// generatedBehaviours are the kinds kindgen writes, served generically with the\n// long-running shape their SDK clients expect.\nfunc generatedBehaviours() []*typeBehaviour {\n\treturn []*typeBehaviour{\n")
	var served []*Kind
	for _, k := range kinds {
		// The emulator serves resource groups with a behaviour of its own (arm.go).
		if !strings.EqualFold(k.ARMType, "Microsoft.Resources/resourceGroups") {
			served = append(served, k)
		}
	}
	kinds = served
	for _, k := range kinds {
		write := lroStyle(k.Create, false)
		writeOnly := ""
		if len(k.types.writeOnly) > 0 {
			writeOnly = fmt.Sprintf(", writeOnly: %#v", k.types.writeOnly)
		}
		if acts := k.secretActions(); len(acts) > 0 {
			var answers []string
			for _, op := range acts {
				answers = append(answers, fmt.Sprintf("%q: %q", strings.ToLower(op.Name), k.answerTemplate(*op.Response)))
			}
			writeOnly += ", actions: secretActions(map[string]string{" + strings.Join(answers, ", ") + "})"
		}
		shapes := sdkShapes(k)
		if k.ChildName == "path" {
			// Azure's examples answer the name as parent/child (emulator/answers).
			writeOnly += ", nameAsPath: true"
		}
		if k.Delete == nil {
			fmt.Fprintf(&b, "\t\t// %s/%s, parent %s; create %s, made with its parent, no delete.\n", k.Group.Name, k.Kind.Kind, parentOf(k), opShape(k.Create))
			fmt.Fprintf(&b, "\t\t{fullType: %q, lro: LROConfig{Write: %s}, noDelete: true%s,\n\t\t\tshapes: %s},\n", k.ARMType, write, writeOnly, shapes)
			continue
		}
		fmt.Fprintf(&b, "\t\t// %s/%s, parent %s; create %s, delete %s.\n", k.Group.Name, k.Kind.Kind, parentOf(k), opShape(k.Create), opShape(k.Delete))
		fmt.Fprintf(&b, "\t\t{fullType: %q, lro: LROConfig{Write: %s, Delete: %s}%s,\n\t\t\tshapes: %s},\n", k.ARMType, write, lroStyle(k.Delete, true), writeOnly, shapes)
	}
	b.WriteString("\t}\n}\n\n// generatedTypes are their api-versions: those the pinned SDK modules speak, and those\n// every earlier stable release of the SDK's modules sent (hack/kindgen/apiversions.json).\nvar generatedTypes = []registeredType{\n")
	for _, k := range kinds {
		var vs []string
		for _, v := range slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(k.APIVersions), k.AcceptedAPIVersions...)))) {
			vs = append(vs, fmt.Sprintf("%q", v))
		}
		fmt.Fprintf(&b, "\t{%q, []string{%s}},\n", k.ARMType, strings.Join(vs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

// sdkShapes is the Go literal of a kind's answer shapes as its SDK client states them, per
// operation: the emulator's style of the poller the client builds and the status codes its
// HasStatusCode accepts (the swagger's responses), with the module, client and methods
// named as their source.
func sdkShapes(k *Kind) string {
	op := func(o *model.Operation, del bool) string {
		if o == nil {
			return "nil"
		}
		codes := make([]string, len(o.StatusCodes))
		for i, c := range o.StatusCodes {
			codes[i] = fmt.Sprint(c)
		}
		return fmt.Sprintf("sdkOp(%s, %s)", lroStyle(o, del), strings.Join(codes, ", "))
	}
	patch := k.Update
	if patch == nil {
		patch = k.UpdateTags
	}
	var methods, qualified []string
	split := false // some operation is another client's (config: moreClients)
	for _, o := range []*model.Operation{k.Create, patch, k.Delete} {
		if o == nil {
			continue
		}
		client := k.Client
		if o.Client != "" {
			client, split = o.Client, true
		}
		methods = append(methods, o.Method)
		qualified = append(qualified, client+"."+o.Method)
	}
	src := fmt.Sprintf("%s@%s %s.%s", k.Module.Path, k.Module.Version, k.Client, strings.Join(methods, ", "))
	if split {
		src = fmt.Sprintf("%s@%s %s", k.Module.Path, k.Module.Version, strings.Join(qualified, ", "))
	}
	return fmt.Sprintf("&sdkShapes{put: %s, patch: %s, delete: %s, source: %q}", op(k.Create, false), op(patch, false), op(k.Delete, true), src)
}

func opShape(o *model.Operation) string {
	if !o.LongRunning {
		return "synchronous"
	}
	if o.FinalStateVia != "" {
		return "long-running (final state via " + o.FinalStateVia + ")"
	}
	return "long-running"
}

// lroStyle maps an SDK poller's shape to the emulator's: the SDK follows
// Azure-AsyncOperation when present, else Location.
func lroStyle(o *model.Operation, del bool) string {
	switch {
	case !o.LongRunning:
		return "LROSync"
	case o.FinalStateVia == "location":
		return "LROLocation"
	case del && o.FinalStateVia == "":
		return "LROLocation"
	}
	return "LROAsyncOperation"
}
