package policy

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	constraintclient "github.com/open-policy-agent/frameworks/constraint/pkg/client"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/drivers/rego"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/reviews"
	"github.com/open-policy-agent/frameworks/constraint/pkg/core/templates"
	"github.com/open-policy-agent/gatekeeper/v3/apis"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator/reader"
	mutationtypes "github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/types"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

//go:embed library
var libraryFS embed.FS

// Library is the constraint library: one directory per template, each with
// template.yaml, samples/<constraint>/ (constraint.yaml and examples) and
// suite.yaml, as in the gatekeeper-library.
func Library() fs.FS {
	sub, err := fs.Sub(libraryFS, "library")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// Engine is the constraint framework driver that evaluates a template.
type Engine string

const (
	// EngineDefault uses CEL (K8sNativeValidation) where a template has it and
	// Rego otherwise, as Gatekeeper does.
	EngineDefault Engine = ""
	// EngineCEL evaluates only K8sNativeValidation sources.
	EngineCEL Engine = "K8sNativeValidation"
	// EngineRego evaluates only Rego sources.
	EngineRego Engine = "Rego"
)

// Option changes how Evaluate runs.
type Option func(*options)

type options struct {
	engine Engine
}

// WithEngine selects the evaluation engine (EngineDefault when not given).
func WithEngine(e Engine) Option {
	return func(o *options) { o.engine = e }
}

// Violation is one constraint denying one object.
type Violation struct {
	// Constraint is Kind/name of the constraint.
	Constraint string
	// EnforcementAction of the constraint, such as deny or dryrun.
	EnforcementAction string
	// Object is Kind namespace/name (or Kind name) of the reviewed object.
	Object string
	// Message is what the template says, as a user sees it at admission.
	Message string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: [%s] %s", v.Object, v.Constraint, v.Message)
}

// SampleConstraints returns the library's own constraints
// (<template>/samples/<constraint>/constraint.yaml), sorted by path.
func SampleConstraints() ([]*unstructured.Unstructured, error) {
	lib := Library()
	files, err := fs.Glob(lib, "*/samples/*/constraint.yaml")
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := fs.ReadFile(lib, f)
		if err != nil {
			return nil, err
		}
		objs, err := DecodeManifests(path.Join("library", f), data)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// SplitManifests separates ConstraintTemplates (decoded) and constraints
// (group constraints.gatekeeper.sh) from the other objects.
func SplitManifests(objs []*unstructured.Unstructured) (tmpls []*templates.ConstraintTemplate, constraints, rest []*unstructured.Unstructured, err error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, u := range objs {
		switch {
		case u == nil:
		case reader.IsTemplate(u):
			t, err := reader.ToTemplate(scheme, u)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("ConstraintTemplate %s: %w", u.GetName(), err)
			}
			tmpls = append(tmpls, t)
		case reader.IsConstraint(u):
			constraints = append(constraints, u)
		default:
			rest = append(rest, u)
		}
	}
	return tmpls, constraints, rest, nil
}

// Templates returns the library's ConstraintTemplates, sorted by name.
func Templates() ([]*templates.ConstraintTemplate, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	return libraryTemplates(scheme)
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

func libraryTemplates(scheme *runtime.Scheme) ([]*templates.ConstraintTemplate, error) {
	lib := Library()
	paths, err := fs.Glob(lib, "*/template.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	out := make([]*templates.ConstraintTemplate, 0, len(paths))
	for _, p := range paths {
		t, err := reader.ReadTemplate(scheme, lib, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join("library", p), err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Evaluate runs the library offline, the way `aztenant policy test` does.
// objs may hold ConstraintTemplates (added to the library's), constraints
// (group constraints.gatekeeper.sh) and the objects to review; every other
// object is reviewed against every constraint. An object is reviewed as
// created, by no user; an AdmissionReview (admission.k8s.io, as gator
// verify accepts) is reviewed as its request, with its user, operation and
// oldObject. namespaces are the Namespace
// objects the reviewed objects live in: they are passed to the templates as
// namespaceObject (CEL) and input.review.namespaceObject (Rego), and used
// for constraints' namespaceSelector. An object whose Namespace is not given
// is reviewed without one, so namespace opt-ins do not apply to it.
func Evaluate(ctx context.Context, objs []*unstructured.Unstructured, namespaces []*corev1.Namespace, opts ...Option) ([]Violation, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	client, err := newClient(o.engine)
	if err != nil {
		return nil, err
	}
	library, err := libraryTemplates(scheme)
	if err != nil {
		return nil, err
	}
	var tmpls []*templates.ConstraintTemplate
	var constraints, reviewed []*unstructured.Unstructured
	for _, u := range objs {
		switch {
		case u == nil:
			continue
		case reader.IsTemplate(u):
			t, err := reader.ToTemplate(scheme, u)
			if err != nil {
				return nil, fmt.Errorf("ConstraintTemplate %s: %w", u.GetName(), err)
			}
			tmpls = append(tmpls, t)
		case reader.IsConstraint(u):
			constraints = append(constraints, u)
		default:
			reviewed = append(reviewed, u)
		}
	}
	// Only the library templates a constraint uses are compiled: a template
	// without a constraint denies nothing, and compiling all of them is most
	// of an evaluation's time.
	used := map[string]bool{}
	for _, c := range constraints {
		used[c.GetKind()] = true
	}
	var needed []*templates.ConstraintTemplate
	for _, t := range library {
		if used[t.Spec.CRD.Spec.Names.Kind] {
			needed = append(needed, t)
		}
	}
	tmpls = append(needed, tmpls...)
	for _, t := range tmpls {
		if _, err := client.AddTemplate(ctx, t); err != nil {
			return nil, fmt.Errorf("ConstraintTemplate %s: %w", t.GetName(), err)
		}
	}
	for _, c := range constraints {
		if _, err := client.AddConstraint(ctx, c); err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.GetKind(), c.GetName(), err)
		}
	}

	byName := make(map[string]*corev1.Namespace, len(namespaces))
	for _, ns := range namespaces {
		if ns != nil {
			byName[ns.Name] = ns
		}
	}

	var out []Violation
	for _, u := range reviewed {
		reviewOpts := []reviews.ReviewOpt{reviews.EnforcementPoint(util.GatorEnforcementPoint)}
		var req *admissionv1.AdmissionRequest
		namespace := u.GetNamespace()
		if isAdmissionReview(u) {
			if req, err = admissionRequest(u); err != nil {
				return nil, err
			}
			namespace = req.Namespace
		}
		ns := byName[namespace]
		if ns != nil {
			m, err := util.NamespaceToMap(ns)
			if err != nil {
				return nil, err
			}
			reviewOpts = append(reviewOpts, reviews.Namespace(m))
		}
		var review any = target.AugmentedUnstructured{
			Object:    *u,
			Namespace: ns,
			Source:    mutationtypes.SourceTypeOriginal,
		}
		if req != nil {
			review = target.AugmentedReview{AdmissionRequest: req, Namespace: ns, Source: mutationtypes.SourceTypeOriginal}
		}
		resp, err := client.Review(ctx, review, reviewOpts...)
		if err != nil {
			return nil, fmt.Errorf("reviewing %s: %w", ObjectName(u), err)
		}
		for _, r := range resp.Results() {
			v := Violation{
				EnforcementAction: r.EnforcementAction,
				Object:            ObjectName(u),
				Message:           r.Msg,
			}
			if r.Constraint != nil {
				v.Constraint = r.Constraint.GetKind() + "/" + r.Constraint.GetName()
			}
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Object != out[j].Object {
			return out[i].Object < out[j].Object
		}
		if out[i].Constraint != out[j].Constraint {
			return out[i].Constraint < out[j].Constraint
		}
		return out[i].Message < out[j].Message
	})
	return out, nil
}

// ObjectName is how a Violation names the reviewed object u (its Object):
// Kind namespace/name, or Kind name for a cluster-scoped object. For an
// AdmissionReview it names what the request is about (a TokenRequest by
// the ServiceAccount it is for).
func ObjectName(u *unstructured.Unstructured) string {
	kind, namespace, name := u.GetKind(), u.GetNamespace(), u.GetName()
	if isAdmissionReview(u) {
		kind, _, _ = unstructured.NestedString(u.Object, "request", "kind", "kind")
		namespace, _, _ = unstructured.NestedString(u.Object, "request", "namespace")
		name, _, _ = unstructured.NestedString(u.Object, "request", "name")
	}
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// isAdmissionReview tells an AdmissionReview (admission.k8s.io, any
// version), which is reviewed as its request, from an object to review.
func isAdmissionReview(u *unstructured.Unstructured) bool {
	return u.GetKind() == "AdmissionReview" && u.GroupVersionKind().Group == admissionv1.SchemeGroupVersion.Group
}

// admissionRequest is the request of an AdmissionReview, checked as gator
// verify checks it: no unknown fields, and an object or oldObject to review.
// It is what the API server would send Gatekeeper's webhook, so its user,
// operation, name (a subresource's parent) and oldObject reach the rules.
func admissionRequest(u *unstructured.Unstructured) (*admissionv1.AdmissionRequest, error) {
	var ar admissionv1.AdmissionReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.UnstructuredContent(), &ar, true); err != nil {
		return nil, fmt.Errorf("AdmissionReview: %w", err)
	}
	if ar.Request == nil {
		return nil, errors.New("AdmissionReview without a request")
	}
	if ar.Request.Object.Raw == nil && ar.Request.OldObject.Raw == nil {
		return nil, fmt.Errorf("AdmissionReview of %s: the request has neither object nor oldObject", ObjectName(u))
	}
	return ar.Request, nil
}

// newClient builds a constraint framework client for the Gatekeeper
// admission target with the engine's drivers.
func newClient(engine Engine) (*constraintclient.Client, error) {
	var drivers []constraintclient.Opt
	addCEL := func() error {
		d, err := k8scel.New()
		if err != nil {
			return err
		}
		drivers = append(drivers, constraintclient.Driver(d))
		return nil
	}
	addRego := func() error {
		d, err := rego.New()
		if err != nil {
			return err
		}
		drivers = append(drivers, constraintclient.Driver(d))
		return nil
	}
	var err error
	switch engine {
	case EngineDefault:
		// The first driver given has priority.
		err = errors.Join(addCEL(), addRego())
	case EngineCEL:
		err = addCEL()
	case EngineRego:
		err = addRego()
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	if err != nil {
		return nil, err
	}
	return constraintclient.NewClient(append([]constraintclient.Opt{
		constraintclient.Targets(&target.K8sValidationTarget{}),
		constraintclient.EnforcementPoints(util.GatorEnforcementPoint),
	}, drivers...)...)
}
