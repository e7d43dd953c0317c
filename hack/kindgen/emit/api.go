package emit

import (
	"fmt"
	"strings"
)

// apiFile is a kind's API types: spec, status, the kind and its list, the nested types,
// and the azurev1alpha1.Resource methods.
func apiFile(k *Kind) string {
	var b strings.Builder
	n := k.Kind.Kind
	b.WriteString("package v1alpha1\n\n")
	b.WriteString("import (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n")
	b.WriteString("\tapiextensionsv1 \"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1\"\n\n") // dropped below when unused
	b.WriteString("\tazurev1alpha1 \"github.com/aztenant/aztenant/api/azure/v1alpha1\"\n")
	if k.Owner == nil && !k.Subscription && !k.Extension {
		b.WriteString("\tresourcesv1alpha1 \"github.com/aztenant/aztenant/api/resources/v1alpha1\"\n")
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "// %sGroupKind is the group and kind of %s.\nvar %sGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: %q}\n\n", n, n, n, n)

	// Spec.
	body := k.Resource
	if k.Create.Request != nil && k.Create.Request.Name != "" {
		body = k.Create.Request.Name
	}
	fmt.Fprintf(&b, "// %sSpec is the desired state of a %s: the writable fields of %s's create body,\n// with ARM's properties flattened into it as ASO does.\n", n, n, body)
	if k.SpecMarkers != nil {
		b.WriteString("//\n")
		for _, m := range k.SpecMarkers.Markers {
			b.WriteString("// +kubebuilder:validation:" + m + "\n")
		}
	}
	fmt.Fprintf(&b, "type %sSpec struct {\n", n)
	if k.FixedName == "" { // a singleton's name is fixed by Azure (managementPolicies/default)
		if r := k.Name; r != nil && r.Doc != "" {
			b.WriteString(wrap("\t", r.Doc) + "\t// +optional\n")
		} else if r != nil && r.UUID {
			b.WriteString("\t// AzureName is the resource's name in Azure, a GUID. When empty, the reconciler derives\n\t// one from the object's namespace, name and scope, so retries and restarts never\n\t// create a second resource. Once set it cannot change.\n\t// +optional\n")
		} else {
			b.WriteString("\t// AzureName is the resource's name in Azure. It defaults to metadata.name and cannot\n\t// change.\n\t// +optional\n")
		}
		minLen, maxLen := 1, 260
		if r := k.Name; r != nil {
			minLen, maxLen = r.MinLength, r.MaxLength
		}
		if minLen > 0 { // none for a derived GUID (name.uuid)
			fmt.Fprintf(&b, "\t// +kubebuilder:validation:MinLength=%d\n", minLen)
		}
		fmt.Fprintf(&b, "\t// +kubebuilder:validation:MaxLength=%d\n", maxLen)
		if r := k.Name; r != nil && r.Pattern != "" {
			b.WriteString("\t// +kubebuilder:validation:Pattern=`" + r.Pattern + "`\n")
		}
		b.WriteString("\tAzureName string `json:\"azureName,omitempty\"`\n\n")
	}
	switch {
	case k.Extension:
		extensionOwnerField(&b, k)
	case !k.Subscription: // a subscription's resource has no owner: the Identity names its subscription
		ownerField(&b, k)
	}
	if k.loc != nil {
		b.WriteString(wrap("\t", k.loc.Doc+" It cannot change."))
		if !k.loc.Required {
			b.WriteString("\t// +optional\n")
		}
		locationMessage := "location is immutable"
		if k.LocationMessage != "" {
			locationMessage = k.LocationMessage
		}
		fmt.Fprintf(&b, "\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\",message=%q\n", locationMessage)
		if k.loc.Required {
			b.WriteString("\tLocation azurev1alpha1.Location `json:\"location\"`\n\n")
		} else {
			b.WriteString("\tLocation azurev1alpha1.Location `json:\"location,omitempty\"`\n\n")
		}
	}
	if k.tags {
		b.WriteString("\t// Tags are Azure resource tags: at most 50, names up to 512 characters, values up to\n\t// 256.\n\t// +optional\n\t// +kubebuilder:validation:MaxProperties=50\n")
		b.WriteString("\t// +kubebuilder:validation:XValidation:rule=\"self.all(k, size(k) <= 512 && size(self[k]) <= 256)\",message=\"tag names are at most 512 characters and values at most 256\"\n")
		b.WriteString("\t// " + reservedTagsRule + "\n")
		b.WriteString("\tTags map[string]string `json:\"tags,omitempty\"`\n\n")
	}
	for _, f := range sortFields(k.spec) {
		f.render(&b)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\t// OperatorSpec holds CEL exports, if any.\n\t// +optional\n\tOperatorSpec *%sOperatorSpec `json:\"operatorSpec,omitempty\"`\n}\n\n", n)
	if len(k.exports) == 0 && len(k.secretExports) == 0 {
		fmt.Fprintf(&b, "// %sOperatorSpec holds the CEL exports of a %s.\ntype %sOperatorSpec struct {\n\tazurev1alpha1.OperatorExpressions `json:\",inline\"`\n}\n\n", n, n, n)
	} else {
		// Fixed exports (api/kinds.yaml, exports): each a Secret or ConfigMap key of its own.
		fmt.Fprintf(&b, "// %sOperatorSpec holds the CEL exports of a %s and where its fixed outputs go.\ntype %sOperatorSpec struct {\n\tazurev1alpha1.OperatorExpressions `json:\",inline\"`\n", n, n, n)
		if len(k.secretExports) > 0 {
			b.WriteString("\n" + wrap("\t", k.SecretExports.Doc))
			fmt.Fprintf(&b, "\t// +optional\n\tSecrets *%sOperatorSecrets `json:\"secrets,omitempty\"`\n", n)
		}
		if len(k.exports) > 0 {
			b.WriteString("\n" + wrap("\t", k.ConfigMapExports.Doc))
			fmt.Fprintf(&b, "\t// +optional\n\tConfigMaps *%sOperatorConfigMaps `json:\"configMaps,omitempty\"`\n", n)
		}
		b.WriteString("}\n\n")
		exportsType(&b, n, "Secret", k.secretExports)
		exportsType(&b, n, "ConfigMap", k.exports)
	}

	// Status.
	fmt.Fprintf(&b, "// %sStatus is the observed state: the common status and the resource's read-only\n// fields, as ARM last reported them.\ntype %sStatus struct {\n\tazurev1alpha1.ResourceStatus `json:\",inline\"`\n\n", n, n)
	for _, f := range sortFields(k.stat) {
		f.render(&b)
		b.WriteString("\n")
	}
	b.WriteString("}\n\n")

	// The kind.
	// Clipped first, so that the sentence naming the ARM type and kindgen
	// (which tools read) is never cut.
	doc := clip(strings.Join(strings.Fields(k.Types[k.Resource].Doc), " "), 400)
	b.WriteString(wrap("", fmt.Sprintf("%s is %s (%s, api-version %s), generated by kindgen from %s %s.", n, lowerFirst(strings.TrimSuffix(doc, ".")), k.ARMType, k.APIVersion, shortModule(k.Module.Path), k.Client)))
	if k.Doc != "" {
		b.WriteString("//\n" + wrap("", k.Doc))
	}
	b.WriteString("//\n// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status\n// +kubebuilder:resource:categories=aztenant;azure\n")
	b.WriteString("// +kubebuilder:printcolumn:name=\"Ready\",type=string,JSONPath=`.status.conditions[?(@.type==\"Ready\")].status`\n")
	b.WriteString("// +kubebuilder:printcolumn:name=\"Reason\",type=string,JSONPath=`.status.conditions[?(@.type==\"Ready\")].reason`\n")
	b.WriteString("// +kubebuilder:printcolumn:name=\"Message\",type=string,JSONPath=`.status.conditions[?(@.type==\"Ready\")].message`\n")
	b.WriteString("// +kubebuilder:printcolumn:name=\"Age\",type=date,JSONPath=`.metadata.creationTimestamp`\n")
	if r := k.Name; r != nil && r.MetadataName && k.FixedName == "" {
		fmt.Fprintf(&b, "// +kubebuilder:validation:XValidation:rule=\"has(self.spec.azureName) || size(self.metadata.name) <= %d\",message=\"metadata.name is longer than %s name may be (%d): set spec.azureName\"\n",
			r.MaxLength, article(nameNoun(k.ARMType)), r.MaxLength)
	}
	if k.ObjectMarkers != nil {
		for _, m := range k.ObjectMarkers.Markers {
			b.WriteString("// +kubebuilder:validation:" + m + "\n")
		}
	}
	if k.uuidName() {
		fmt.Fprintf(&b, "// +kubebuilder:validation:XValidation:rule=\"!has(oldSelf.spec.azureName) || (has(self.spec.azureName) && self.spec.azureName == oldSelf.spec.azureName)\",message=\"azureName is immutable once set: it names the %s in Azure\"\n", nameNoun(k.ARMType))
	} else if k.FixedName == "" {
		b.WriteString("// +kubebuilder:validation:XValidation:rule=\"(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)\",message=\"azureName is immutable: it names the resource in Azure\"\n")
	}
	if k.namedResource() {
		// Cosmos DB's envelope names the resource again: Azure refuses a body whose
		// resource.id is not the name in the URL.
		b.WriteString("// +kubebuilder:validation:XValidation:rule=\"self.spec.resource.id == (has(self.spec.azureName) ? self.spec.azureName : self.metadata.name)\",message=\"spec.resource.id must be the resource's name (spec.azureName, or metadata.name)\"\n")
	}
	fmt.Fprintf(&b, "type %s struct {\n\tmetav1.TypeMeta   `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\n\tSpec   %sSpec   `json:\"spec\"`\n\tStatus %sStatus `json:\"status,omitempty\"`\n}\n\n", n, n, n)
	fmt.Fprintf(&b, "// %sList is a list of %s.\n//\n// +kubebuilder:object:root=true\ntype %sList struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems           []%s `json:\"items\"`\n}\n\n", n, n, n, n)
	fmt.Fprintf(&b, "var _ azurev1alpha1.Resource = &%s{}\n\n", n)
	if k.FixedName != "" {
		fmt.Fprintf(&b, "// AzureName is %q: Azure has one %s per %s, of that name.\nfunc (x *%s) AzureName() string { return %q }\n\n", k.FixedName, n, k.Owner0(), n, k.FixedName)
	} else if k.uuidName() {
		fmt.Fprintf(&b, "// AzureName is spec.azureName. It does not default to metadata.name (Azure names a %s\n// with a GUID): when empty, the adapter derives one.\nfunc (x *%s) AzureName() string { return x.Spec.AzureName }\n\n", nameNoun(k.ARMType), n)
	} else {
		fmt.Fprintf(&b, "// AzureName is spec.azureName, defaulting to metadata.name.\nfunc (x *%s) AzureName() string {\n\tif x.Spec.AzureName != \"\" {\n\t\treturn x.Spec.AzureName\n\t}\n\treturn x.Name\n}\n\n", n)
	}
	if k.Extension {
		fmt.Fprintf(&b, "// Owner is the scope as an OwnerReference (name or armId); OwnerGroupKind says which kind a\n// name refers to.\nfunc (x *%s) Owner() *azurev1alpha1.OwnerReference {\n\tif x.Spec.Owner == nil {\n\t\treturn nil\n\t}\n\treturn &azurev1alpha1.OwnerReference{Name: x.Spec.Owner.Name, ARMID: x.Spec.Owner.ARMID}\n}\n\n", n)
		fmt.Fprintf(&b, "// OwnerGroupKind is the kind spec.owner.name refers to (%sOwner.GroupKind); unlike other\n// kinds it depends on the object.\nfunc (x *%s) OwnerGroupKind() schema.GroupKind { return x.Spec.Owner.GroupKind() }\n\n", n, n)
	} else if k.Subscription {
		fmt.Fprintf(&b, "// Owner is nil: the parent is the subscription of the namespace's Identity.\nfunc (x *%s) Owner() *azurev1alpha1.OwnerReference { return nil }\n\n", n)
		fmt.Fprintf(&b, "// OwnerGroupKind is the zero value: there is no owner kind.\nfunc (x *%s) OwnerGroupKind() schema.GroupKind { return schema.GroupKind{} }\n\n", n)
	} else {
		fmt.Fprintf(&b, "// Owner is spec.owner.\nfunc (x *%s) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }\n\n", n)
		ownerGK := "resourcesv1alpha1.ResourceGroupGroupKind"
		if k.Owner != nil {
			ownerGK = k.Owner.Kind.Kind + "GroupKind"
		}
		fmt.Fprintf(&b, "// OwnerGroupKind is the kind spec.owner.name refers to.\nfunc (x *%s) OwnerGroupKind() schema.GroupKind { return %s }\n\n", n, ownerGK)
	}
	fmt.Fprintf(&b, "// AzureStatus is the common part of the status.\nfunc (x *%s) AzureStatus() *azurev1alpha1.ResourceStatus { return &x.Status.ResourceStatus }\n\n", n)
	fmt.Fprintf(&b, "// Expressions are the CEL exports of spec.operatorSpec, or nil.\nfunc (x *%s) Expressions() *azurev1alpha1.OperatorExpressions {\n\tif x.Spec.OperatorSpec == nil {\n\t\treturn nil\n\t}\n\treturn &x.Spec.OperatorSpec.OperatorExpressions\n}\n\n", n)

	if k.Extension {
		extensionOwnerType(&b, k)
	}
	if k.types.needID {
		fmt.Fprintf(&b, "// %sResourceID is another resource, by its ARM ID.\ntype %sResourceID struct {\n\t// ID is the resource's ARM ID.\n\t// +optional\n\tID string `json:\"id,omitempty\"`\n}\n\n", n, n)
	}
	if k.types.hasRefs {
		fmt.Fprintf(&b, "// %sReference is another Azure resource: by ARM ID, or an aztenant object of this\n// namespace whose ARM ID the operator puts in its place.\ntype %sReference struct {\n\t// Reference names the resource.\n\tReference azurev1alpha1.ResourceReference `json:\"reference\"`\n}\n\n", n, n)
	}
	for _, s := range k.types.structs {
		s.render(&b)
	}
	if out := b.String(); strings.Count(out, "apiextensionsv1.") > 0 {
		return out
	}
	return strings.Replace(b.String(), "\tapiextensionsv1 \"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1\"\n", "", 1)
}

// ownerField is spec.owner: the parent, a ResourceGroup unless the kind's owner is
// generated too, by name or by ARM ID.
func ownerField(b *strings.Builder, k *Kind) {
	parent, pattern := "a ResourceGroup", `^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+`
	if k.Owner != nil {
		parent = "a " + k.Owner.Kind.Kind
		pattern = armIDPattern(k.Owner.ARMType)
	}
	fmt.Fprintf(b, "\t// Owner is the resource this one belongs to (%s): %s of this namespace (name)\n\t// or an existing one's ARM ID (armId). It cannot change.\n", k.Owner0(), parent)
	b.WriteString("\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\",message=\"owner is immutable: create a new resource to move it\"\n")
	ownerMessage := "owner.armId must be the ARM ID of " + k.Owner0()
	if k.OwnerMessage != "" {
		ownerMessage = k.OwnerMessage
	}
	fmt.Fprintf(b, "\t// +kubebuilder:validation:XValidation:rule=\"!has(self.armId) || self.armId.matches('%s$')\",message=%q\n", pattern, ownerMessage)
	b.WriteString("\tOwner *azurev1alpha1.OwnerReference `json:\"owner\"`\n\n")
}

// uuidName reports whether the resource's name is a GUID derived when spec.azureName is
// empty (api/kinds.yaml, name.uuid).
func (k *Kind) uuidName() bool { return k.Name != nil && k.Name.UUID }

// extensionOwnerField is an extension resource's spec.owner: its scope, by name one of the
// kinds of api/kinds.yaml's extension.owners, or any ARM ID in a subscription. The Tenant's
// guards bound it like any owner (the scope must lie in the namespace's subscription and
// allowed resource groups).
func extensionOwnerField(b *strings.Builder, k *Kind) {
	def := k.Kind.Extension.Owners[0]
	fmt.Fprintf(b, "\t// Owner is the scope of the %s: an aztenant resource of this namespace by name\n\t// (a %s unless group and kind say otherwise), or any Azure scope by armId (a\n\t// subscription, resource group or resource). Tenancy guards check that the scope lies in\n\t// the namespace's subscription and allowed resource groups. It cannot change.\n", nameNoun(k.ARMType), def.Kind)
	fmt.Fprintf(b, "\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\",message=\"owner is immutable: Azure cannot move %s to another scope\"\n", article(nameNoun(k.ARMType)))
	fmt.Fprintf(b, "\tOwner *%sOwner `json:\"owner\"`\n\n", k.Kind.Kind)
}

// extensionOwnerType is <Kind>Owner, in the shape of ASO's arbitrary owner reference:
// name (with group and kind of one of the config's owners, the first when omitted) or
// armId; and its GroupKind.
func extensionOwnerType(b *strings.Builder, k *Kind) {
	n, owners := k.Kind.Kind, k.Kind.Extension.Owners
	var groups []string
	seen := map[string]bool{}
	for _, o := range owners {
		if !seen[o.Group.Aztenant] {
			seen[o.Group.Aztenant] = true
			groups = append(groups, o.Group.Aztenant)
		}
	}
	def := owners[0]
	fmt.Fprintf(b, "// %sOwner is the scope of a %s, in the shape of ASO's arbitrary owner reference:\n// either name (with group and kind, %s when omitted) or armId.\n//\n", n, n, def.Kind)
	b.WriteString("// +kubebuilder:validation:XValidation:rule=\"has(self.name) != has(self.armId)\",message=\"set exactly one of name and armId\"\n")
	b.WriteString("// +kubebuilder:validation:XValidation:rule=\"has(self.group) == has(self.kind)\",message=\"set group and kind together\"\n")
	b.WriteString("// +kubebuilder:validation:XValidation:rule=\"!has(self.armId) || !has(self.group)\",message=\"group and kind go with name, not armId\"\n")
	fmt.Fprintf(b, "type %sOwner struct {\n", n)
	b.WriteString("\t// Name of the owner in this namespace. Owners never cross namespaces.\n\t// +optional\n\t// +kubebuilder:validation:MinLength=1\n\t// +kubebuilder:validation:MaxLength=253\n\tName string `json:\"name,omitempty\"`\n\n")
	fmt.Fprintf(b, "\t// Group of the named owner's kind, such as %s. Defaults to %s.\n\t// +optional\n\t// +kubebuilder:validation:Enum=%s\n\tGroup string `json:\"group,omitempty\"`\n\n", groups[len(groups)-1], def.Group.Aztenant, strings.Join(groups, ";"))
	fmt.Fprintf(b, "\t// Kind of the named owner, such as %s. Defaults to %s.\n\t// +optional\n\t// +kubebuilder:validation:MaxLength=63\n\t// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`\n\tKind string `json:\"kind,omitempty\"`\n\n", owners[len(owners)-1].Kind, def.Kind)
	b.WriteString("\t// ARMID of a scope not managed by aztenant: a subscription (/subscriptions/<id>), a\n\t// resource group or a resource.\n\t// +optional\n\t// +kubebuilder:validation:Pattern=`^/subscriptions/[^/]+(/.+)?$`\n\t// +kubebuilder:validation:MaxLength=1024\n\tARMID string `json:\"armId,omitempty\"`\n}\n\n")
	fmt.Fprintf(b, "// GroupKind is the kind owner.name refers to: group and kind when set, %s otherwise.\n// It is the zero value when the owner is an armId.\nfunc (o *%sOwner) GroupKind() schema.GroupKind {\n\tswitch {\n\tcase o == nil || o.Name == \"\":\n\t\treturn schema.GroupKind{}\n\tcase o.Group != \"\" || o.Kind != \"\":\n\t\treturn schema.GroupKind{Group: o.Group, Kind: o.Kind}\n\tdefault:\n\t\treturn schema.GroupKind{Group: %q, Kind: %q}\n\t}\n}\n\n", def.Kind, n, def.Group.Aztenant, def.Kind)
}

// namedResource reports whether the spec has Cosmos DB's {resource: {id}} envelope, whose
// id is the resource's name.
func (k *Kind) namedResource() bool {
	for _, f := range k.spec {
		if f.JSON != "resource" || !f.Required {
			continue
		}
		for _, s := range k.types.structs {
			if s.Name == strings.TrimPrefix(f.Type, "*") {
				for _, sf := range s.Fields {
					if sf.JSON == "id" && sf.Required {
						return true
					}
				}
			}
		}
	}
	return false
}

// Owner0 names the owner's ARM type for docs.
func (k *Kind) Owner0() string { return k.Kind.Owner }

// armIDPattern is the regular expression of a resource group resource's ARM ID.
func armIDPattern(armType string) string {
	ns, rest, _ := strings.Cut(armType, "/")
	p := `^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/` + ns
	for _, seg := range strings.Split(rest, "/") {
		p += "/" + seg + "/[^/]+"
	}
	return p
}

func sortFields(fs []goField) []goField {
	out := append([]goField(nil), fs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].JSON < out[j-1].JSON; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func lowerFirst(s string) string {
	if s == "" {
		return "an Azure resource"
	}
	if len(s) > 1 && strings.ToUpper(s[:2]) == s[:2] {
		return s // an acronym
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func shortModule(path string) string {
	segs := strings.Split(path, "/")
	last := segs[len(segs)-1]
	if strings.HasPrefix(last, "v") && len(segs) > 1 && strings.HasPrefix(segs[len(segs)-2], "arm") {
		return segs[len(segs)-2] + "/" + last
	}
	return last
}

// reservedTagsRule refuses the tags the operator writes (its owner marker, onboarding's),
// in any casing, as reconcilers.ReservedTagsMessage says.
const reservedTagsRule = `+kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"`

// nameNoun is what the ARM type's last segment calls one resource, in words:
// flexibleServers/firewallRules is "firewall rule", resourceGroups "resource group".
func nameNoun(armType string) string {
	seg := armType[strings.LastIndex(armType, "/")+1:]
	switch {
	case strings.HasSuffix(seg, "ies"):
		seg = strings.TrimSuffix(seg, "ies") + "y"
	case strings.HasSuffix(seg, "s") && !strings.HasSuffix(seg, "ss") && !strings.HasSuffix(seg, "is"):
		seg = strings.TrimSuffix(seg, "s")
	}
	var words []string
	start := 0
	for i := 1; i < len(seg); i++ {
		if seg[i] >= 'A' && seg[i] <= 'Z' && seg[i-1] >= 'a' && seg[i-1] <= 'z' {
			words = append(words, seg[start:i])
			start = i
		}
	}
	words = append(words, seg[start:])
	return strings.ToLower(strings.Join(words, " "))
}

// article puts "a" or "an" before a noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// exportsType writes <Kind>Operator<Secret|ConfigMap>s, the struct of a kind's fixed
// outputs of one sort: a <Secret|ConfigMap>Destination per key. Nothing for none.
func exportsType(b *strings.Builder, n, dest string, keys []exportRef) {
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(b, "// %sOperator%ss are the %s keys the %s's outputs are written to.\ntype %sOperator%ss struct {\n", n, dest, dest, n, n, dest)
	for _, x := range keys {
		b.WriteString(wrap("\t", x.doc))
		fmt.Fprintf(b, "\t// +optional\n\t%s *azurev1alpha1.%sDestination `json:\"%s,omitempty\"`\n", x.goName, dest, x.name)
	}
	b.WriteString("}\n\n")
}
