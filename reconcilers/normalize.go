package reconcilers

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// This file is what is known of how Azure answers a write, as data (issue 27,
// item 2; docs/design/azure-answers.md §2): the normalisation table, which says
// when Azure's answer at a path means what the spec says there though spelled
// otherwise, and how the comparison (compare.go) applies a kind's Facts about
// answers (Normalize, NotReturned, OpenValues; Forced is refused in desired.go).
// Every entry cites the public source of the fact. A change to an entry's
// meaning changes what counts as drift for every kind that names it.

// Names of the entries of the normalisation table (Normalizer.Name).
const (
	// NormalizeCase: identifiers, enum values and ARM IDs in any casing. The
	// comparison applies it to every string without being named.
	NormalizeCase = "case"
	// NormalizeLocation: a region's name or its display name.
	NormalizeLocation = "location"
	// NormalizeXML: XML, whatever its indentation and the whitespace between
	// elements.
	NormalizeXML = "xml"
	// NormalizeXMLFragment: NormalizeXML, where a <fragment> root element is
	// the same as its content.
	NormalizeXMLFragment = "xmlFragment"
	// NormalizeTrimSlash: a relative URL path with or without its leading slash.
	NormalizeTrimSlash = "trimSlash"
	// NormalizeAPIMScope: an API Management scope relative to its service
	// ("/apis") or as the full ARM ID under the service.
	NormalizeAPIMScope = "apimScope"
	// NormalizeRoleDefinitionID: a role definition's ARM ID at any scope; the
	// GUID names the role.
	NormalizeRoleDefinitionID = "roleDefinitionID"
	// NormalizeIntEnum: a string enum's value or its index among
	// Normalizer.Values.
	NormalizeIntEnum = "intEnum"
)

// Normalizer names the entry of the normalisation table that applies at a
// path (Facts.Normalize).
type Normalizer struct {
	// Name is the entry, one of the Normalize... constants.
	Name string
	// Values are the enum's values in the order Azure numbers them from 0:
	// NormalizeIntEnum only.
	Values []string
}

// normalization is one entry of the table: canon gives a value's canonical
// form, and two values mean the same when both have one and they are equal.
type normalization struct {
	canon func(v any, values []string) (string, bool)
}

// normalizations is the table. Each entry says why, with its source.
var normalizations = map[string]normalization{
	// ARM resource names, IDs and enum values are case-insensitive, and ARM
	// answers them in its own casing: "Resource and resource group names are
	// case-insensitive" (learn.microsoft.com/azure/azure-resource-manager/
	// management/resource-name-rules); the Key Vault example answers the
	// subnet ID sent as .../resourceGroups/rg1/providers/Microsoft.Network/...
	// as .../resourcegroups/rg1/providers/microsoft.network/...
	// (keyvault/resource-manager/.../stable/2024-11-01/examples/createVault.json,
	// kept in internal/emulator/answers/zz_generated_keyvault.json).
	NormalizeCase: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		return strings.ToLower(s), ok
	}},
	// ARM takes a location's name or its display name and answers either:
	// cosmos-db/resource-manager/Microsoft.DocumentDB/DocumentDB/stable/2025-10-15/
	// examples/CosmosDBDatabaseAccountCreateMin.json sends "location": "westus"
	// and "locationName": "southcentralus" and answers "West US" and "South
	// Central US". The names and display names are those of
	// azurev1alpha1.Locations (`az account list-locations`, ARM's Subscriptions
	// - List Locations); for each, the name is the display name without spaces,
	// lower-cased (TestNormalizers checks the table).
	NormalizeLocation: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		return azurev1alpha1.NormalizeLocation(s), ok
	}},
	// API Management answers policy XML re-indented:
	// apimanagement/resource-manager/Microsoft.ApiManagement/stable/2024-05-01/
	// examples/ApiManagementCreateApiPolicy.json sends "<policies> <inbound />
	// <backend>    <forward-request />  </backend>  <outbound /></policies>" and
	// answers it one element a line, indented, with CRLF. Terraform's azurerm
	// provider compares policies the same way
	// (internal/services/apimanagement/api_management_api_policy_resource.go,
	// XmlWithDotNetInterpolationsDiffSuppress).
	NormalizeXML: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		return canonicalXML(s, ""), true
	}},
	// API Management answers a policy fragment without its <fragment> root:
	// apimanagement/.../stable/2024-05-01/examples/ApiManagementCreatePolicyFragment.json
	// sends "<fragment><json-to-xml apply=\"always\" ... /></fragment>" and
	// answers "<json-to-xml apply=\"always\" ... />".
	NormalizeXMLFragment: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		return canonicalXML(s, "fragment"), true
	}},
	// An API Management API's path is relative to the service's URL, without a
	// leading slash: armapimanagement/v3 models.go, APIContractProperties.Path
	// ("Relative URL uniquely identifying this API ... appended to the API
	// endpoint base URL"); no example sends one with a slash. Terraform's
	// azurerm provider refuses one that "start[s] or end[s] with `/`"
	// (internal/services/apimanagement/validate/api_management.go,
	// ApiManagementApiPath). The trial of issue 27 saw "/x" answered "x".
	NormalizeTrimSlash: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		return strings.ToLower(strings.TrimPrefix(s, "/")), ok
	}},
	// An API Management subscription's scope is written relative to the service
	// ("Scope like /products/{productId} or /apis or /apis/{apiId}",
	// armapimanagement/v3 models.go, SubscriptionContractProperties.Scope) and
	// answered as the full ARM ID under the service
	// (apimanagement/.../stable/2024-05-01/examples/ApiManagementCreateSubscription.json
	// answers .../service/apimService1/products/5600b59475ff190048060002).
	// Terraform's azurerm provider sends "/apis" and reads back any scope
	// ending in "/apis" as it
	// (internal/services/apimanagement/api_management_subscription_resource.go).
	NormalizeAPIMScope: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if m := apimServiceID.FindStringSubmatch(s); m != nil {
			s = m[1]
		}
		return strings.ToLower(strings.TrimSuffix(s, "/")), true
	}},
	// A role assignment's role definition ID is answered at another scope than
	// sent: authorization/resource-manager/Microsoft.Authorization/stable/
	// 2022-04-01/examples/RoleAssignments_CreateForSubscription.json sends
	// /subscriptions/a925.../providers/Microsoft.Authorization/roleDefinitions/0b5f...
	// and answers /providers/Microsoft.Authorization/roleDefinitions/0b5f...
	// (kept in internal/emulator/answers/zz_generated_authorization.json). A
	// role definition's name is a GUID unique in the directory, so the GUID
	// names the role wherever the ID is rooted.
	NormalizeRoleDefinitionID: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if m := roleDefinitionGUID.FindStringSubmatch(s); m != nil {
			return "role " + strings.ToLower(m[1]), true
		}
		return strings.ToLower(s), true
	}},
	// Cosmos DB answers a Mongo role definition's type, a string enum in its
	// swagger and the SDK (armcosmos/v3 MongoRoleDefinitionType: BuiltInRole,
	// CustomRole), as an integer; the trial of issue 27 saw it.
	// hashicorp/go-azure-sdk types it int64 with BuiltInRole = 0 and
	// CustomRole = 1 (resource-manager/cosmosdb/2022-11-15/mongorbacs/constants.go,
	// as vendored in hashicorp/terraform-provider-azurerm), the order of the
	// SDK's PossibleMongoRoleDefinitionTypeValues. Values holds the order; for
	// another enum the SDK's order is not verified against Azure's numbers.
	NormalizeIntEnum: {canon: func(v any, values []string) (string, bool) {
		switch x := v.(type) {
		case string:
			return strings.ToLower(x), true
		case float64, int, int32, int64, json.Number:
			n, ok := integer(x)
			if !ok || n < 0 || n >= int64(len(values)) {
				return "", false
			}
			return strings.ToLower(values[n]), true
		}
		return "", false
	}},
}

var (
	// apimServiceID matches an ARM ID under an API Management service; the
	// group is the scope relative to the service.
	apimServiceID = regexp.MustCompile(`(?i)^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ApiManagement/service/[^/]+(/.*)?$`)
	// roleDefinitionGUID matches a role definition's ARM ID at any scope.
	roleDefinitionGUID = regexp.MustCompile(`(?i)/providers/Microsoft\.Authorization/roleDefinitions/([^/]+)/?$`)
)

// integer is a JSON number's value when it is a whole number.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		if n != math.Trunc(n) || math.IsInf(n, 0) {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// same reports whether desired and actual mean the same under n. An unknown
// entry matches nothing (checkKind refuses it).
func (n Normalizer) same(desired, actual any) bool {
	e, ok := normalizations[n.Name]
	if !ok {
		return false
	}
	d, okD := e.canon(desired, n.Values)
	a, okA := e.canon(actual, n.Values)
	return okD && okA && d == a
}

// canonicalXML is s with its markup written one way: whitespace between
// elements dropped, runs of whitespace in text and comments made one space,
// attributes sorted, empty elements written as a start and an end tag. With
// unwrap, a root element of that name without attributes is its content. XML
// that does not parse (a policy whose C# expressions hold a bare '<') falls
// back to the text with its whitespace made one space and none beside a tag's
// brackets.
func canonicalXML(s, unwrap string) string {
	dec := xml.NewDecoder(strings.NewReader(s))
	var toks []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return looseXML(s)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			attrs := make([]string, 0, len(t.Attr))
			for _, a := range t.Attr {
				attrs = append(attrs, xmlName(a.Name)+"="+escapeXML(a.Value))
			}
			sort.Strings(attrs)
			toks = append(toks, "<"+strings.Join(append([]string{xmlName(t.Name)}, attrs...), " ")+">")
		case xml.EndElement:
			toks = append(toks, "</"+xmlName(t.Name)+">")
		case xml.CharData:
			if text := strings.Join(strings.Fields(string(t)), " "); text != "" {
				toks = append(toks, escapeXML(text))
			}
		case xml.Comment:
			toks = append(toks, "<!--"+strings.Join(strings.Fields(string(t)), " ")+"-->")
		case xml.ProcInst:
			if t.Target != "xml" { // the declaration says nothing of the content
				toks = append(toks, "<?"+t.Target+" "+strings.Join(strings.Fields(string(t.Inst)), " ")+"?>")
			}
		case xml.Directive:
			toks = append(toks, "<!"+strings.Join(strings.Fields(string(t)), " ")+">")
		}
	}
	if unwrap != "" && len(toks) >= 2 && toks[0] == "<"+unwrap+">" && toks[len(toks)-1] == "</"+unwrap+">" {
		toks = toks[1 : len(toks)-1]
	}
	return strings.Join(toks, "")
}

func xmlName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func escapeXML(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

var (
	xmlSpace       = regexp.MustCompile(`\s+`)
	xmlBracketSpan = regexp.MustCompile(`\s*([<>])\s*`)
)

// looseXML is canonicalXML's fallback for markup that does not parse.
func looseXML(s string) string {
	return xmlBracketSpan.ReplaceAllString(xmlSpace.ReplaceAllString(strings.TrimSpace(s), " "), "$1")
}

// answerRules are a kind's Facts about Azure's answers as the comparison
// applies them, by fact path (factPath).
type answerRules struct {
	normalize   map[string]Normalizer
	notReturned map[string]bool
	openValues  map[string][]any
	// patterns: some path has a "*", so lookups match segment by segment.
	patterns bool
}

// answerRulesOf indexes f's facts about answers; the zero value when it has none.
func answerRulesOf(f Facts) answerRules {
	if len(f.Normalize) == 0 && len(f.NotReturned) == 0 && len(f.OpenValues) == 0 {
		return answerRules{}
	}
	r := answerRules{normalize: f.Normalize, notReturned: map[string]bool{}, openValues: f.OpenValues}
	for _, p := range f.NotReturned {
		r.notReturned[p] = true
	}
	for p := range f.Normalize {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	for _, p := range f.NotReturned {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	for p := range f.OpenValues {
		r.patterns = r.patterns || strings.Contains(p, "*")
	}
	return r
}

func (r answerRules) empty() bool {
	return r.normalize == nil && r.notReturned == nil && r.openValues == nil
}

// factPath is a compared path (compare.go's: properties.locations[0].locationName,
// a.b[name=n].c) as facts name it: the list selectors dropped.
func factPath(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	depth := 0
	for _, c := range p {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// matchFact says whether a fact path (with "*" for any map key) names path.
func matchFact(pattern, path string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == path
	}
	ps, qs := strings.Split(pattern, "."), strings.Split(path, ".")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != qs[i] {
			return false
		}
	}
	return true
}

// lookup finds the fact of a map keyed by fact path for the compared path.
func lookup[V any](m map[string]V, patterns bool, path string) (V, bool) {
	var zero V
	if len(m) == 0 {
		return zero, false
	}
	fp := factPath(path)
	if v, ok := m[fp]; ok {
		return v, true
	}
	if patterns {
		for p, v := range m {
			if matchFact(p, fp) {
				return v, true
			}
		}
	}
	return zero, false
}

// notAnswered says whether Azure leaving path out of its answer is no
// difference (Facts.NotReturned).
func (r answerRules) notAnswered(path string) bool {
	_, ok := lookup(r.notReturned, r.patterns, path)
	return ok
}

// equivalent says whether desired and actual at path mean the same under the
// entry Facts.Normalize names there.
func (r answerRules) equivalent(path string, desired, actual any) bool {
	n, ok := lookup(r.normalize, r.patterns, path)
	return ok && n.same(desired, actual)
}

// withoutOpenValues is got without the elements Azure adds on its own at path
// (Facts.OpenValues) that want does not hold; got itself when there are none.
func (r answerRules) withoutOpenValues(eq func(path, desired, observed string) bool, path string, want, got []any) []any {
	open, ok := lookup(r.openValues, r.patterns, path)
	if !ok {
		return got
	}
	covers := func(v, e any) bool { return (differ{eq: eq}).diff("", v, e) == "" }
	out := make([]any, 0, len(got))
	for _, g := range got {
		added := false
		for _, v := range open {
			if covers(v, g) {
				added = true
				break
			}
		}
		if added {
			for _, w := range want {
				if covers(w, g) {
					added = false // the spec holds it too
					break
				}
			}
		}
		if !added {
			out = append(out, g)
		}
	}
	return out
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
			if err == nil && v != nil && (differ{}).diff("", want, v) != "" {
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
