package policy

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	constraintclient "github.com/open-policy-agent/frameworks/constraint/pkg/client"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/reviews"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator/reader"
	mutationtypes "github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/types"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/aztenant/aztenant/internal/armtarget"
)

// ReasonPolicyDenied is the Ready reason of an object the library denies.
const ReasonPolicyDenied = "PolicyDenied"

// DeniedError lists the violations that stopped an object before any ARM call.
type DeniedError struct{ Violations []Violation }

func (e *DeniedError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = "[" + v.Constraint + "] " + v.Message
	}
	return "denied by policy: " + strings.Join(msgs, "; ")
}

// Reason is the condition reason.
func (e *DeniedError) Reason() string { return ReasonPolicyDenied }

// Guard evaluates the library with a fixed set of constraints in the operator,
// before any ARM call: a cluster without Gatekeeper is protected too, and an
// object admitted before a constraint existed is stopped at reconcile. The
// templates are compiled once, when the guard is built.
type Guard struct {
	client *constraintclient.Client
	reader client.Reader
	scheme *runtime.Scheme
}

// NewGuard compiles the library (plus any ConstraintTemplates among objs) and
// the constraints among objs. Namespaces are read through r for the rules
// that depend on namespace annotations.
//
// Guards of one process built from the same objs and engine share one compiled
// client: compiling the library's templates takes about a quarter of a CPU-second,
// and a process may build several (the operator's tests start one per stack). The
// client is not changed after it is built, and reviews run concurrently on it.
func NewGuard(ctx context.Context, r client.Reader, scheme *runtime.Scheme, objs []*unstructured.Unstructured, engine Engine) (*Guard, error) {
	key, err := compiledKey(objs, engine)
	if err != nil {
		return nil, err
	}
	compiled.mu.Lock()
	defer compiled.mu.Unlock()
	c := compiled.clients[key]
	if c == nil {
		if c, err = compile(ctx, objs, engine); err != nil {
			return nil, err
		}
		if compiled.clients == nil {
			compiled.clients = map[[sha256.Size]byte]*constraintclient.Client{}
		}
		compiled.clients[key] = c
	}
	return &Guard{client: c, reader: r, scheme: scheme}, nil
}

// compiled are the clients NewGuard compiled, by compiledKey.
var compiled struct {
	mu      sync.Mutex
	clients map[[sha256.Size]byte]*constraintclient.Client
}

// compiledKey names what a client is compiled from: the engine and the objects, in
// their order.
func compiledKey(objs []*unstructured.Unstructured, engine Engine) ([sha256.Size]byte, error) {
	h := sha256.New()
	h.Write([]byte(engine))
	for _, u := range objs {
		data, err := u.MarshalJSON()
		if err != nil {
			return [sha256.Size]byte{}, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		h.Write([]byte{0})
		h.Write(data)
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// compile builds a constraint client with the library, the templates among objs and
// the constraints among objs.
func compile(ctx context.Context, objs []*unstructured.Unstructured, engine Engine) (*constraintclient.Client, error) {
	fwScheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	c, err := newClient(engine)
	if err != nil {
		return nil, err
	}
	tmpls, err := libraryTemplates(fwScheme)
	if err != nil {
		return nil, err
	}
	var constraints []*unstructured.Unstructured
	for _, u := range objs {
		switch {
		case reader.IsTemplate(u):
			t, err := reader.ToTemplate(fwScheme, u)
			if err != nil {
				return nil, fmt.Errorf("ConstraintTemplate %s: %w", u.GetName(), err)
			}
			tmpls = append(tmpls, t)
		case reader.IsConstraint(u):
			constraints = append(constraints, u)
		default:
			return nil, fmt.Errorf("%s %s is neither a ConstraintTemplate nor a constraint", u.GetKind(), u.GetName())
		}
	}
	for _, t := range tmpls {
		if _, err := c.AddTemplate(ctx, t); err != nil {
			return nil, fmt.Errorf("ConstraintTemplate %s: %w", t.GetName(), err)
		}
	}
	for _, u := range constraints {
		if _, err := c.AddConstraint(ctx, u); err != nil {
			return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return c, nil
}

// Admit implements the reconcilers' Guard: a *DeniedError when a constraint
// with enforcement action deny (or none) rejects obj.
func (g *Guard) Admit(ctx context.Context, obj client.Object, _ armtarget.Target) error {
	gvk, err := apiutil.GVKForObject(obj, g.scheme)
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	// The client serves gator's enforcement point: this is an offline
	// evaluation of the same templates, not a webhook.
	opts := []reviews.ReviewOpt{reviews.EnforcementPoint(util.GatorEnforcementPoint)}
	var ns corev1.Namespace
	var nsp *corev1.Namespace
	if err := g.reader.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, &ns); err == nil {
		nm, err := util.NamespaceToMap(&ns)
		if err != nil {
			return err
		}
		opts = append(opts, reviews.Namespace(nm))
		nsp = &ns
	} else if client.IgnoreNotFound(err) != nil {
		return err
	}
	resp, err := g.client.Review(ctx, target.AugmentedUnstructured{Object: u, Namespace: nsp, Source: mutationtypes.SourceTypeOriginal}, opts...)
	if err != nil {
		return fmt.Errorf("evaluating policy: %w", err)
	}
	var denied []Violation
	for _, r := range resp.Results() {
		if r.EnforcementAction != "" && r.EnforcementAction != "deny" {
			continue
		}
		v := Violation{EnforcementAction: r.EnforcementAction, Object: ObjectName(&u), Message: r.Msg}
		if r.Constraint != nil {
			v.Constraint = r.Constraint.GetKind() + "/" + r.Constraint.GetName()
		}
		denied = append(denied, v)
	}
	if len(denied) > 0 {
		return &DeniedError{Violations: denied}
	}
	return nil
}
