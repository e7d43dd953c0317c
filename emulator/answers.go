package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Answer transforms make the emulator answer a write the way Azure does rather than by
// echoing it: Azure adds defaults, rewrites strings, forces values, adds set elements and
// never returns some values (issue 27 names the classes). A transform is set per ARM type
// and JSON path; it shapes what a PUT or PATCH stores, so the write's answer, the
// long-running operation's final body, GET and every list answer the same. Resources
// stored before a transform was set keep their answer until their next write, and a
// portal edit (PatchResource) changes the stored answer as it is, with no transform.
// README.md ("Azure's answers") cites the public source of each operation.

// AnswerOp is one kind of answer transform.
type AnswerOp string

const (
	// OpCase answers a string in another case (Case: lower, upper, camel, pascal), as
	// AKS answers backendPoolType "NodeIPConfiguration" as "nodeIPConfiguration".
	OpCase AnswerOp = "case"
	// OpDisplayLocation answers a location name by its display name ("westus" as "West
	// US"), as Cosmos DB does for location and locations[].locationName.
	OpDisplayLocation AnswerOp = "displayLocation"
	// OpAddDefault adds Value where the request has nothing (a default Azure fills in).
	OpAddDefault AnswerOp = "addDefault"
	// OpAddElement adds Value to the list at Path unless an equal element (for an
	// object with a name, one of that name) is there: a Container Apps environment's
	// Consumption workload profile, Cosmos DB's /"_etag"/? excluded path.
	OpAddElement AnswerOp = "addElement"
	// OpDrop removes the value at Path from the answer (write-only or create-time values
	// Azure never returns, such as Cosmos DB's properties.options).
	OpDrop AnswerOp = "drop"
	// OpReorder sorts the list at Path by the string value of each element's Key
	// ("name" when empty), descending with Descending, as Azure answers a network
	// security group's rules in its own order.
	OpReorder AnswerOp = "reorder"
	// OpReformatXML re-indents an XML string (two spaces, CRLF, empty elements
	// self-closed) as API Management answers policies.
	OpReformatXML AnswerOp = "reformatXML"
	// OpExpandID answers a relative ID ("/apis") under the full ARM ID of the resource's
	// ancestor of type Of (its parent when Of is empty), as API Management answers a
	// subscription's scope.
	OpExpandID AnswerOp = "expandID"
	// OpTrimSlash answers a string without its leading slashes, as API Management
	// answers an API's path.
	OpTrimSlash AnswerOp = "trimSlash"
	// OpIntEnum answers a string enum value as its index in Enum (compared without
	// case), as Cosmos DB answers a Mongo role definition's type.
	OpIntEnum AnswerOp = "intEnum"
	// OpForce answers Value whatever the request said, as Key Vault answers
	// enableSoftDelete true.
	OpForce AnswerOp = "force"
	// OpChangeAfterSucceeded answers the request's value until the resource has been
	// answered once with provisioningState Succeeded, then Value from the next request
	// on, and Value directly on later writes of that resource: Azure recomputing a value
	// after provisioning, as Redis does its maxmemory settings.
	OpChangeAfterSucceeded AnswerOp = "changeAfterSucceeded"
	// OpSQLSkuName answers an Azure SQL SKU (the object at Path) by its name
	// <edition>_<family>, the capacity apart: "BC" with family "Gen4" as "BC_Gen4",
	// "HS_Gen5_4" as "HS_Gen5" with capacity 4, the family and the tier of a vCore
	// edition filled in (citedRewrites names the examples). It is one service's SKU
	// grammar, so Perturb never picks it (it is not in AnswerOps).
	OpSQLSkuName AnswerOp = "sqlSkuName"
	// OpCIDR answers an IP address as the range of that one address ("124.56.78.91"
	// as "124.56.78.91/32"), as Key Vault answers its network rules; a range is
	// answered as sent. Not in AnswerOps: Perturb never picks it.
	OpCIDR AnswerOp = "cidr"
)

// AnswerOps lists every operation, in the order Perturb considers them.
var AnswerOps = []AnswerOp{
	OpCase, OpDisplayLocation, OpAddDefault, OpAddElement, OpDrop, OpReorder, OpReformatXML,
	OpExpandID, OpTrimSlash, OpIntEnum, OpForce, OpChangeAfterSucceeded,
}

// AnswerClass is the class of issue 27 a transform belongs to, so a failing test can say
// which kind of Azure answer its kind did not take.
type AnswerClass string

const (
	// ClassAbsent: values Azure never returns.
	ClassAbsent AnswerClass = "absent"
	// ClassRewritten: strings Azure rewrites (case, display names, XML, IDs, order).
	ClassRewritten AnswerClass = "rewritten"
	// ClassForced: values Azure forces or recomputes.
	ClassForced AnswerClass = "forced"
	// ClassAddedElement: elements Azure adds to a set.
	ClassAddedElement AnswerClass = "added element"
	// ClassIntegerEnum: enums answered as integers.
	ClassIntegerEnum AnswerClass = "integer enum"
	// ClassAddedDefault: defaults Azure adds where the request has nothing (issue 27,
	// items 3 and 4: "defaults added").
	ClassAddedDefault AnswerClass = "added default"
)

// answerClasses is each operation's class.
var answerClasses = map[AnswerOp]AnswerClass{
	OpCase: ClassRewritten, OpDisplayLocation: ClassRewritten, OpAddDefault: ClassAddedDefault,
	OpAddElement: ClassAddedElement, OpDrop: ClassAbsent, OpReorder: ClassRewritten,
	OpReformatXML: ClassRewritten, OpExpandID: ClassRewritten, OpTrimSlash: ClassRewritten,
	OpIntEnum: ClassIntegerEnum, OpForce: ClassForced, OpChangeAfterSucceeded: ClassForced,
	OpSQLSkuName: ClassRewritten, OpCIDR: ClassRewritten,
}

// Case modes of OpCase.
const (
	CaseLower  = "lower"  // "Standard_LRS" → "standard_lrs"
	CaseUpper  = "upper"  // "Standard_LRS" → "STANDARD_LRS"
	CaseCamel  = "camel"  // first letter lower: "NodeIPConfiguration" → "nodeIPConfiguration"
	CasePascal = "pascal" // first letter upper: "enabled" → "Enabled"
)

// AnswerTransform is one way Azure answers writes of a type differently from the request.
type AnswerTransform struct {
	// Type is the ARM resource type (Microsoft.KeyVault/vaults), matched without case.
	Type string `json:"type"`
	// Path is where in the body: keys joined by dots (properties.enableSoftDelete), and
	// after a key that holds a list, [] for every element, [2] for one, or [name=x] for
	// the elements whose field name is x (compared without case), as in
	// properties.locations[].locationName.
	Path string `json:"path"`
	// Op is what Azure does there.
	Op AnswerOp `json:"op"`
	// Class is the class of the answer; filled from Op when empty.
	Class AnswerClass `json:"class,omitempty"`
	// Value for addDefault, addElement, force and changeAfterSucceeded.
	Value json.RawMessage `json:"value,omitempty"`
	// Case for the case operation: lower, upper, camel or pascal.
	Case string `json:"case,omitempty"`
	// Enum for intEnum: the values in the order whose index Azure answers.
	Enum []string `json:"enum,omitempty"`
	// Key and Descending order the elements for reorder.
	Key        string `json:"key,omitempty"`
	Descending bool   `json:"descending,omitempty"`
	// Of is the ancestor type whose ID expandID puts before a relative ID.
	Of string `json:"of,omitempty"`
	// Source is the public source of the behaviour (an example file, a doc page), or
	// what made it (Perturb's seed).
	Source string `json:"source,omitempty"`
}

// String names the transform the way a failing test reports it: class, operation,
// type and path.
func (t AnswerTransform) String() string {
	c := t.Class
	if c == "" {
		c = answerClasses[t.Op]
	}
	return fmt.Sprintf("%s (%s) at %s %s", c, t.Op, t.Type, t.Path)
}

// compiledAnswer is a validated transform with its path parsed and value decoded.
type compiledAnswer struct {
	AnswerTransform
	typeKey string
	path    []pathToken
	value   any
	id      string // identity of the transform, for "changed once" bookkeeping
}

// compileAnswer validates t and fills its class.
func compileAnswer(t AnswerTransform) (*compiledAnswer, error) {
	if strings.Count(t.Type, "/") < 1 || strings.HasPrefix(t.Type, "/") {
		return nil, fmt.Errorf("type %q is not an ARM resource type such as Microsoft.KeyVault/vaults", t.Type)
	}
	path, err := parseAnswerPath(t.Path)
	if err != nil {
		return nil, err
	}
	if len(path) == 1 && path[0].kind == tokKey && slices.Contains([]string{"id", "name", "type"}, path[0].key) {
		return nil, fmt.Errorf("path %q: the emulator owns a resource's id, name and type", t.Path)
	}
	class, ok := answerClasses[t.Op]
	if !ok {
		return nil, fmt.Errorf("op %q is not one of %v", t.Op, AnswerOps)
	}
	if t.Class == "" {
		t.Class = class
	}
	if !slices.Contains([]AnswerClass{ClassAbsent, ClassRewritten, ClassForced, ClassAddedElement, ClassIntegerEnum, ClassAddedDefault}, t.Class) {
		return nil, fmt.Errorf("class %q is not one of absent, rewritten, forced, added element, integer enum, added default", t.Class)
	}
	c := &compiledAnswer{AnswerTransform: t, typeKey: strings.ToLower(t.Type), path: path}
	switch t.Op {
	case OpAddDefault, OpAddElement, OpForce, OpChangeAfterSucceeded:
		if len(bytes.TrimSpace(t.Value)) == 0 {
			return nil, fmt.Errorf("op %s needs a value", t.Op)
		}
		v, err := decodeValue(t.Value)
		if err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		c.value = v
	case OpCase:
		if !slices.Contains([]string{CaseLower, CaseUpper, CaseCamel, CasePascal}, t.Case) {
			return nil, fmt.Errorf("op case needs case lower, upper, camel or pascal, not %q", t.Case)
		}
	case OpIntEnum:
		if len(t.Enum) == 0 {
			return nil, errors.New("op intEnum needs the enum's values in order")
		}
	}
	if t.Op == OpAddElement || t.Op == OpReorder {
		if last := path[len(path)-1]; last.kind != tokKey {
			return nil, fmt.Errorf("path %q: op %s names a list, so the path ends with its key", t.Path, t.Op)
		}
	}
	id, _ := json.Marshal(t)
	c.id = string(id)
	return c, nil
}

// decodeValue parses one JSON value keeping numbers exact.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// SetAnswerTransforms replaces the answer transforms (none: the emulator echoes writes).
// It checks them all first and changes nothing when one is invalid. Transforms shape
// the writes that follow; stored resources keep their answer until written again.
func (e *Emulator) SetAnswerTransforms(ts ...AnswerTransform) error {
	compiled, err := compileAnswers(ts)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answers = compiled
	return nil
}

// AnswerTransforms returns the transforms in force, classes filled in.
func (e *Emulator) AnswerTransforms() []AnswerTransform {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]AnswerTransform, 0, len(e.answers))
	for _, c := range e.answers {
		out = append(out, c.AnswerTransform)
	}
	return out
}

func compileAnswers(ts []AnswerTransform) ([]*compiledAnswer, error) {
	out := make([]*compiledAnswer, 0, len(ts))
	for i, t := range ts {
		c, err := compileAnswer(t)
		if err != nil {
			return nil, fmt.Errorf("answer transform %d (%s %s): %w", i, t.Type, t.Path, err)
		}
		out = append(out, c)
	}
	return out, nil
}
