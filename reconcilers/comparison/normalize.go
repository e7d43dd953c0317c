package comparison

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// This file is what is known of how Azure answers a write, as data (issue 27,
// item 2; docs/design/azure-answers.md §2): the normalisation table, which says
// when Azure's answer at a path means what the spec says there though spelled
// otherwise; a kind names the entries its paths take in Facts.Normalize
// (reconcilers' kind contract), which reaches the comparison as
// Rules.Normalize (rules.go applies them). Every entry cites the public source of the
// fact. A change to an entry's meaning changes what counts as drift for every
// kind that names it.

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
	// NormalizeCIDR: an IP address or the range of that one address
	// ("10.1.2.3" or "10.1.2.3/32").
	NormalizeCIDR = "cidr"
)

// Normalizer names the entry of the normalisation table that applies at a
// path (Rules.Normalize; a kind's Facts.Normalize).
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
	// case-insensitive unless specifically noted ... Always perform a
	// case-insensitive comparison of names" (learn.microsoft.com/azure/
	// azure-resource-manager/management/resource-name-rules); the Key Vault example answers the
	// subnet ID sent as .../resourceGroups/rg1/providers/Microsoft.Network/...
	// as .../resourcegroups/rg1/providers/microsoft.network/...
	// (keyvault/resource-manager/.../stable/2024-11-01/examples/createVault.json,
	// kept in emulator/answers/zz_generated_keyvault.json).
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
	// (kept in emulator/answers/zz_generated_authorization.json). A
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
	// Key Vault answers a single IPv4 address of its network rules as the range
	// of that address: keyvault/resource-manager/Microsoft.KeyVault/stable/
	// 2024-11-01/examples/createVaultWithNetworkAcls.json sends ipRules
	// "124.56.78.91" and "'10.91.4.0/24'" and answers "124.56.78.91/32" and
	// "'10.91.4.0/24'" (kept in emulator/answers/zz_generated_keyvault.json);
	// armkeyvault v1.5.0 models.go, IPRule.Value: "An IPv4 address range in CIDR
	// notation, such as '124.56.78.91' (simple IP address) or '124.56.78.0/24'".
	// A range is compared as its network (the bits past the prefix cleared).
	NormalizeCIDR: {canon: func(v any, _ []string) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if a, err := netip.ParseAddr(s); err == nil {
			return netip.PrefixFrom(a, a.BitLen()).String(), true
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			return p.Masked().String(), true
		}
		return s, true
	}},
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

// Check refuses a Normalizer that cannot be applied: an entry the table does
// not have, NormalizeIntEnum without values, values for another entry.
func (n Normalizer) Check() error {
	switch _, ok := normalizations[n.Name]; {
	case !ok:
		return fmt.Errorf("the normalisation table has no entry %q", n.Name)
	case n.Name == NormalizeIntEnum && len(n.Values) == 0:
		return fmt.Errorf("%s needs the enum's values in Azure's order", n.Name)
	case n.Name != NormalizeIntEnum && len(n.Values) > 0:
		return fmt.Errorf("only %s takes values", NormalizeIntEnum)
	}
	return nil
}

// same reports whether desired and actual mean the same under n. An unknown
// entry matches nothing (Check refuses it).
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
