package vap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/open-policy-agent/frameworks/constraint/pkg/core/templates"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel/schema"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel/transform"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

const (
	// NamePrefix starts the name of every generated policy and binding.
	NamePrefix = "aztenant-"
	// TemplateAnnotation names the ConstraintTemplate a policy came from.
	TemplateAnnotation = "policy.aztenant.io/template"
	// ConstraintAnnotation names the constraint (Kind/name) a policy came from.
	ConstraintAnnotation = "policy.aztenant.io/constraint"
	managedByLabel       = "app.kubernetes.io/managed-by"
	managedBy            = "aztenant"
)

// UnsupportedError says why a template or one of its constraints cannot be
// expressed as a ValidatingAdmissionPolicy.
type UnsupportedError struct {
	// Template is the ConstraintTemplate's name (empty when no template
	// defines the constraint's kind).
	Template string
	// Constraint is Kind/name, empty when the whole template is unsupported.
	Constraint string
	// Reason is why, for a person.
	Reason string
}

func (e *UnsupportedError) Error() string {
	switch {
	case e.Constraint == "":
		return fmt.Sprintf("ConstraintTemplate %s: %s", e.Template, e.Reason)
	case e.Template == "":
		return fmt.Sprintf("constraint %s: %s", e.Constraint, e.Reason)
	}
	return fmt.Sprintf("constraint %s (ConstraintTemplate %s): %s", e.Constraint, e.Template, e.Reason)
}

// Pair is the policy and binding made from one constraint.
type Pair struct {
	Policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	Binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Result is what Generate made and what it could not.
type Result struct {
	// Pairs are sorted by constraint Kind/name.
	Pairs []Pair
	// Unsupported lists each template and constraint left out, with why.
	Unsupported []*UnsupportedError
}

// Generate converts every constraint with the template defining its kind.
// A template that cannot be expressed is reported once, naming the
// constraints it leaves out; a constraint whose own settings cannot be
// expressed is reported alone. The error is for failures that are not about
// the input (the CEL environment could not be built).
func Generate(tmpls []*templates.ConstraintTemplate, constraints []*unstructured.Unstructured) (*Result, error) {
	// A later template replaces an earlier one of the same kind (a user's
	// version of a library template).
	byKind := make(map[string]*templates.ConstraintTemplate, len(tmpls))
	for _, t := range tmpls {
		byKind[t.Spec.CRD.Spec.Names.Kind] = t
	}
	sorted := append([]*unstructured.Unstructured(nil), constraints...)
	sort.Slice(sorted, func(i, j int) bool { return constraintID(sorted[i]) < constraintID(sorted[j]) })

	res := &Result{}
	// Template problems do not depend on the constraint: check each once.
	templateErr := make(map[string]*UnsupportedError)
	skipped := make(map[string][]string)
	for _, t := range byKind {
		if _, err := checkTemplate(t); err != nil {
			var u *UnsupportedError
			if !errors.As(err, &u) {
				return nil, err
			}
			templateErr[t.GetName()] = u
		}
	}
	for _, c := range sorted {
		t := byKind[c.GetKind()]
		if t == nil {
			res.Unsupported = append(res.Unsupported, &UnsupportedError{
				Constraint: constraintID(c),
				Reason:     "no ConstraintTemplate among the inputs defines kind " + c.GetKind(),
			})
			continue
		}
		if templateErr[t.GetName()] != nil {
			skipped[t.GetName()] = append(skipped[t.GetName()], constraintID(c))
			continue
		}
		p, b, err := Convert(t, c)
		if err != nil {
			var u *UnsupportedError
			if !errors.As(err, &u) {
				return nil, err
			}
			res.Unsupported = append(res.Unsupported, u)
			continue
		}
		res.Pairs = append(res.Pairs, Pair{Policy: p, Binding: b})
	}
	names := make([]string, 0, len(templateErr))
	for n := range templateErr {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		u := *templateErr[n]
		if s := skipped[n]; len(s) > 0 {
			u.Reason += "; constraints not converted: " + strings.Join(s, ", ")
		}
		res.Unsupported = append(res.Unsupported, &u)
	}
	return res, nil
}

// checkTemplate returns the template's CEL source, or an *UnsupportedError
// when it has none usable by the API server.
func checkTemplate(t *templates.ConstraintTemplate) (*schema.Source, error) {
	unsupported := func(reason string) error {
		return &UnsupportedError{Template: t.GetName(), Reason: reason}
	}
	source, err := schema.GetSourceFromTemplate(t)
	switch {
	case errors.Is(err, schema.ErrCELEngineMissing):
		return nil, unsupported("no K8sNativeValidation (CEL) code; its Rego runs only in Gatekeeper")
	case errors.Is(err, schema.ErrOneTargetAllowed):
		return nil, unsupported("a template for VAP needs exactly one target")
	case err != nil:
		return nil, unsupported("K8sNativeValidation source: " + err.Error())
	}
	if tgt := t.Spec.Targets[0].Target; tgt != "admission.k8s.gatekeeper.sh" {
		return nil, unsupported("target " + tgt + " is not admission.k8s.gatekeeper.sh")
	}
	for _, v := range source.Variables {
		if !celIdentifier(v.Name) {
			return nil, unsupported(fmt.Sprintf("variable name %q is not a CEL identifier or is a CEL reserved word, which the API server refuses in a ValidatingAdmissionPolicy (Gatekeeper accepts it); rename it", v.Name))
		}
	}
	for _, mc := range source.MatchConditions {
		if strings.HasPrefix(mc.Name, internalPrefix) {
			return nil, unsupported("match condition " + mc.Name + " uses the prefix reserved for generated conditions")
		}
	}
	// The parameters' type is dyn whatever the constraint, so the template's
	// expressions compile (or not) the same for every constraint.
	if err := compile(templateVariables(source, "null"), nil, validations(source, "")); err != nil {
		return nil, unsupported(err.Error())
	}
	return source, nil
}

// Convert makes the policy and binding enforcing constraint c of template t.
// The error is an *UnsupportedError when they cannot be expressed.
func Convert(t *templates.ConstraintTemplate, c *unstructured.Unstructured) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	source, err := checkTemplate(t)
	if err != nil {
		return nil, nil, err
	}
	id := constraintID(c)
	unsupported := func(reason string) error {
		return &UnsupportedError{Template: t.GetName(), Constraint: id, Reason: reason}
	}
	if c.GetKind() != t.Spec.CRD.Spec.Names.Kind {
		return nil, nil, unsupported("kind differs from the template's " + t.Spec.CRD.Spec.Names.Kind)
	}
	actions, err := validationActions(c)
	if err != nil {
		return nil, nil, unsupported(err.Error())
	}
	params, err := parameters(c)
	if err != nil {
		return nil, nil, unsupported(err.Error())
	}
	m, err := readMatch(c)
	if err != nil {
		return nil, nil, unsupported(err.Error())
	}
	ops, err := operations(t)
	if err != nil {
		return nil, nil, unsupported(err.Error())
	}

	conditions := append(convertConditions(source), m.conditions()...)
	vars := templateVariables(source, params)
	vals := validations(source, c.GetName())
	if err := compile(vars, conditions, vals); err != nil {
		return nil, nil, unsupported(err.Error())
	}
	failurePolicy, err := source.GetFailurePolicy()
	if err != nil {
		return nil, nil, unsupported(err.Error())
	}

	name := objectName(c.GetKind(), c.GetName())
	meta := metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{managedByLabel: managedBy},
		Annotations: map[string]string{TemplateAnnotation: t.GetName(), ConstraintAnnotation: id},
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    failurePolicy,
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: m.rules(ops)},
			MatchConditions:  conditions,
			Variables:        vars,
			Validations:      vals,
		},
	}
	bmeta := *meta.DeepCopy()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: bmeta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: actions,
		},
	}
	if m.NamespaceSelector != nil || m.LabelSelector != nil {
		binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{
			NamespaceSelector: m.NamespaceSelector,
			ObjectSelector:    m.LabelSelector,
		}
	}
	return policy, binding, nil
}

// templateVariables are Gatekeeper's bound variables (anyObject, params)
// followed by the template's own, as its CEL driver evaluates them.
func templateVariables(source *schema.Source, params string) []admissionregistrationv1.Variable {
	vars := []admissionregistrationv1.Variable{
		{Name: schema.ObjectName, Expression: transform.BindObjectV1Beta1().Expression},
		// dyn: the rules test fields with has() and compare with null, as
		// they do with Gatekeeper's schemaless parameters.
		{Name: schema.ParamsName, Expression: "dyn(" + params + ")"},
	}
	for _, v := range source.Variables {
		vars = append(vars, admissionregistrationv1.Variable{Name: v.Name, Expression: v.Expression})
	}
	return vars
}

// validations are the template's, with messages prefixed by the constraint's
// name as Gatekeeper's webhook does ("[name] message").
func validations(source *schema.Source, constraint string) []admissionregistrationv1.Validation {
	out := make([]admissionregistrationv1.Validation, 0, len(source.Validations))
	for _, v := range source.Validations {
		val := admissionregistrationv1.Validation{
			Expression: v.Expression,
			Message:    v.Message,
			// Gatekeeper's webhook denies with 403 Forbidden; VAP's default is 422 Invalid.
			Reason: ptr.To(metav1.StatusReasonForbidden),
		}
		if v.MessageExpression != "" {
			val.MessageExpression = v.MessageExpression
		}
		if constraint != "" {
			prefix := "[" + constraint + "] "
			if val.Message != "" {
				val.Message = prefix + val.Message
			}
			if val.MessageExpression != "" {
				val.MessageExpression = strconv.Quote(prefix) + " + (" + val.MessageExpression + ")"
			}
		}
		out = append(out, val)
	}
	return out
}

func convertConditions(source *schema.Source) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, 0, len(source.MatchConditions))
	for _, mc := range source.MatchConditions {
		out = append(out, admissionregistrationv1.MatchCondition{Name: mc.Name, Expression: mc.Expression})
	}
	return out
}

// validationActions maps the constraint's enforcement action for the VAP
// enforcement point: deny to Deny, warn to Warn, dryrun to Audit.
func validationActions(c *unstructured.Unstructured) ([]admissionregistrationv1.ValidationAction, error) {
	action, err := util.GetEnforcementAction(c.Object)
	if err != nil {
		return nil, err
	}
	var names []string
	switch action {
	case util.Scoped:
		if names, err = util.ScopedActionForEP(util.VAPEnforcementPoint, c); err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("its scopedEnforcementActions name no enforcement point %s or *", util.VAPEnforcementPoint)
		}
	case util.Unrecognized:
		raw, _, _ := unstructured.NestedString(c.Object, "spec", "enforcementAction")
		return nil, fmt.Errorf("enforcementAction %q is not deny, warn, dryrun or scoped", raw)
	default:
		names = []string{string(action)}
	}
	set := map[admissionregistrationv1.ValidationAction]bool{}
	for _, n := range names {
		switch util.EnforcementAction(n) {
		case util.Deny:
			set[admissionregistrationv1.Deny] = true
		case util.Warn:
			set[admissionregistrationv1.Warn] = true
		case util.Dryrun:
			set[admissionregistrationv1.Audit] = true
		default:
			return nil, fmt.Errorf("enforcement action %q has no VAP equivalent", n)
		}
	}
	// The API server refuses Deny with Warn; a denial already shows the message.
	if set[admissionregistrationv1.Deny] {
		delete(set, admissionregistrationv1.Warn)
	}
	var out []admissionregistrationv1.ValidationAction
	for _, a := range []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit} {
		if set[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// parameters is the constraint's spec.parameters as a CEL literal.
func parameters(c *unstructured.Unstructured) (string, error) {
	p, found, err := unstructured.NestedFieldNoCopy(c.Object, "spec", "parameters")
	if err != nil {
		return "", err
	}
	if !found {
		return "null", nil
	}
	lit, err := celLiteral(p)
	if err != nil {
		return "", fmt.Errorf("spec.parameters: %w", err)
	}
	return lit, nil
}

// operations are the template's (all of them for "*"), or CREATE and UPDATE,
// the operations Gatekeeper's webhook is registered for by default.
func operations(t *templates.ConstraintTemplate) ([]admissionregistrationv1.OperationType, error) {
	ops := t.Spec.Targets[0].Operations
	if len(ops) == 0 {
		return []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, nil
	}
	var out []admissionregistrationv1.OperationType
	for _, op := range ops {
		switch op {
		case admissionregistrationv1.OperationAll:
			return []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}, nil
		case admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete, admissionregistrationv1.Connect:
			out = append(out, op)
		default:
			return nil, fmt.Errorf("operation %q is not CREATE, UPDATE, DELETE, CONNECT or *", op)
		}
	}
	return out, nil
}

// celReserved are the words the CEL grammar reserves; the API server refuses
// them as variable names ("namespace" is the one templates tend to use).
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true,
	"if": true, "import": true, "let": true, "loop": true, "package": true,
	"namespace": true, "return": true, "var": true, "void": true, "while": true,
}

var celIdent = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

func celIdentifier(name string) bool { return celIdent.MatchString(name) && !celReserved[name] }

func constraintID(c *unstructured.Unstructured) string { return c.GetKind() + "/" + c.GetName() }

// objectName is aztenant-<kind>-<constraint>, shortened with a hash to fit a
// DNS subdomain name.
func objectName(kind, constraint string) string {
	name := NamePrefix + strings.ToLower(kind) + "-" + constraint
	if len(name) <= validation.DNS1123SubdomainMaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:4])
	return strings.TrimRight(name[:validation.DNS1123SubdomainMaxLength-len(hash)-1], "-.") + "-" + hash
}
