package reconcilers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// kstatus, as kubectl's and Flux's and Argo CD's health checks use it, gives
// an object carrying each reason the verdict of the reason's class, whatever
// reason the object carried before (no flag of an earlier state stays).
func TestKStatusVerdictFollowsTheClass(t *testing.T) {
	verdict := func(obj *resourcesv1alpha1.ResourceGroup) (status.Status, string) {
		t.Helper()
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		res, err := status.Compute(&unstructured.Unstructured{Object: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res.Status, res.Message
	}
	fresh := func() *resourcesv1alpha1.ResourceGroup {
		rg := &resourcesv1alpha1.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rg", Generation: 3}}
		rg.APIVersion, rg.Kind = "resources.aztenant.io/v1alpha1", "ResourceGroup"
		return rg
	}
	for _, rc := range ReadyReasons() {
		want := rc.Class.KStatus()
		switch rc.Class {
		case ClassSucceeded:
			if rc.Ready != metav1.ConditionTrue {
				t.Errorf("%s: success with Ready=%s", rc.Reason, rc.Ready)
			}
		case ClassTerminal:
			if rc.Ready != metav1.ConditionFalse {
				t.Errorf("%s: terminal with Ready=%s", rc.Reason, rc.Ready)
			}
		case ClassTransient:
			if rc.Ready == metav1.ConditionTrue {
				t.Errorf("%s: transient with Ready=True", rc.Reason)
			}
		default:
			t.Errorf("%s: class %q", rc.Reason, rc.Class)
		}
		for _, before := range append([]ReasonClass{{}}, ReadyReasons()...) {
			rg := fresh()
			if before.Reason != "" {
				newOutcome(before.Reason, "before").apply(rg)
			}
			newOutcome(rc.Reason, "m").apply(rg)
			got, msg := verdict(rg)
			if string(got) != want {
				t.Errorf("%s (after %s): kstatus %s (%s), want %s for class %s", rc.Reason, before.Reason, got, msg, want, rc.Class)
			}
			ready := meta.FindStatusCondition(rg.Status.Conditions, ConditionReady)
			if ready == nil || ready.Status != rc.Ready || ready.Reason != rc.Reason {
				t.Errorf("%s: Ready %+v, want %s", rc.Reason, ready, rc.Ready)
			}
			stalled := meta.IsStatusConditionTrue(rg.Status.Conditions, ConditionStalled)
			reconciling := meta.IsStatusConditionTrue(rg.Status.Conditions, ConditionReconciling)
			if stalled != (rc.Class == ClassTerminal) || reconciling != (rc.Class == ClassTransient) {
				t.Errorf("%s (after %s): Stalled %v, Reconciling %v for class %s", rc.Reason, before.Reason, stalled, reconciling, rc.Class)
			}
		}
	}
	// A reason missing from the list is terminal: someone should look.
	rg := fresh()
	newOutcome("SomethingNew", "m").apply(rg)
	if got, _ := verdict(rg); got != status.FailedStatus {
		t.Errorf("an unlisted reason: kstatus %s, want Failed", got)
	}
}

// notResourceReasons are Reason constants of the scanned packages that never
// reach the Ready condition of an Azure-backed object, and where they go.
var notResourceReasons = map[string]string{
	"identity.ReasonExchanged":            "the Identity's own Ready",
	"identity.ReasonTerminating":          "the Identity's own Ready while it is deleted",
	"tenancy.ReasonSelected":              "the Tenant's Ready",
	"tenancy.ReasonInvalidSelector":       "the Tenant's Ready",
	"tenancy.ReasonInvalidPattern":        "the Tenant's Ready",
	"tenancy.ReasonTerminating":           "the Tenant's Ready while it is deleted",
	"tenancy.ReasonNoOverlap":             "the Tenant's ResourceGroupsExclusive",
	"tenancy.ReasonResourceGroupsOverlap": "the Tenant's ResourceGroupsExclusive",
	"tenancy.ReasonNoTenant":              "internal: the guard turns it into TenantPolicyDenied",
	"reconcilers.ReasonMatches":           "the InSync condition of an observed object",
	"reconcilers.ReasonDiffers":           "the InSync condition of an observed object",
	"reconcilers.ReasonNotInAzure":        "the InSync condition of an observed object",
}

// reasonPackages are the packages whose reasons an Azure-backed object's
// Ready condition carries.
var reasonPackages = []string{".", "kinds", "../identity", "../tenancy", "../policy"}

// Every Reason constant of those packages is in readyReasons with a class
// (or named in notResourceReasons), every listed reason is one of them, and
// the reconciler names the reason of every outcome by its constant (its
// class, and so Ready, Reconciling and Stalled, follow from the reason).
func TestEveryReasonIsClassified(t *testing.T) {
	listed := map[string]bool{}
	for _, rc := range ReadyReasons() {
		listed[rc.Reason] = true
	}
	declared := map[string]string{} // value -> pkg.Name of one declaration
	fset := token.NewFileSet()
	for _, dir := range reasonPackages {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			pkg := f.Name.Name
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, name := range n.Names {
						if !strings.HasPrefix(name.Name, "Reason") || i >= len(n.Values) {
							continue
						}
						lit, ok := n.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue
						}
						v, _ := strconv.Unquote(lit.Value)
						qualified := pkg + "." + name.Name
						if _, skip := notResourceReasons[qualified]; skip {
							continue
						}
						declared[v] = qualified
						if !listed[v] {
							t.Errorf("%s = %q (%s) is not in readyReasons: give it a class there, or name it in notResourceReasons", qualified, v, fset.Position(name.Pos()))
						}
					}
				case *ast.CallExpr:
					if pkg != "reconcilers" {
						break
					}
					if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "newOutcome" && len(n.Args) > 0 {
						if lit, ok := n.Args[0].(*ast.BasicLit); ok {
							t.Errorf("%s: %s(%s, ...): name the reason by its constant", fset.Position(n.Pos()), fn.Name, lit.Value)
						}
					}
				case *ast.CompositeLit:
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Outcome" && pkg == "reconcilers" {
						for _, e := range n.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Reason" {
								if lit, ok := kv.Value.(*ast.BasicLit); ok {
									t.Errorf("%s: Outcome{Reason: %s}: name the reason by its constant", fset.Position(n.Pos()), lit.Value)
								}
							}
						}
					}
				case *ast.AssignStmt:
					// o.Reason = "..."
					for i, l := range n.Lhs {
						if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reason" && pkg == "reconcilers" && i < len(n.Rhs) {
							if lit, ok := n.Rhs[i].(*ast.BasicLit); ok {
								t.Errorf("%s: Reason = %s: name the reason by its constant", fset.Position(n.Pos()), lit.Value)
							}
						}
					}
				}
				return true
			})
		}
	}
	for r := range listed {
		if _, ok := declared[r]; !ok {
			t.Errorf("readyReasons lists %q, which no scanned package declares as a Reason constant", r)
		}
	}
	for q := range notResourceReasons {
		found := false
		for _, d := range declared {
			found = found || d == q
		}
		if found {
			t.Errorf("%s is both listed and in notResourceReasons", q)
		}
	}
}
