package planclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/planning"
)

// Plan dry-runs each aztenant object as the user, then asks the operator about
// those the API server accepts, in Plans of at most MaxObjects objects, an owner
// tree never split.
func Plan(ctx context.Context, c client.Client, namespace string, docs []*unstructured.Unstructured) ([]planv1alpha1.PlannedObject, error) {
	var out []planv1alpha1.PlannedObject
	var send []*unstructured.Unstructured
	var index []int // out position of each sent object
	for _, d := range docs {
		g := d.GroupVersionKind().Group
		if !strings.HasSuffix(g, ".aztenant.io") || g == planv1alpha1.GroupVersion.Group {
			continue
		}
		o := d.DeepCopy()
		if ns := o.GetNamespace(); ns != "" && ns != namespace {
			out = append(out, planv1alpha1.PlannedObject{Kind: o.GroupVersionKind().GroupKind().String(), Name: o.GetName(), Action: planv1alpha1.ActionDenied,
				Reason: "CrossNamespaceReference", Message: fmt.Sprintf("the manifest names namespace %q, not %q", ns, namespace)})
			continue
		}
		o.SetNamespace(namespace)
		po := planv1alpha1.PlannedObject{Kind: o.GroupVersionKind().GroupKind().String(), Name: o.GetName()}
		if err := dryRun(ctx, c, o); err != nil {
			po.Action, po.Reason, po.Message = planv1alpha1.ActionDenied, string(apierrors.ReasonForError(err)), "the API server refuses it: "+err.Error()
			out = append(out, po)
			continue
		}
		index = append(index, len(out))
		out = append(out, po)
		send = append(send, o)
	}
	if len(send) == 0 {
		return out, nil
	}
	groups, err := split(send, MaxObjects)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		objs := make([]*unstructured.Unstructured, len(g))
		for i, j := range g {
			objs[i] = send[j]
		}
		answer, err := askOperator(ctx, c, namespace, objs)
		if err != nil {
			return nil, err
		}
		for i, a := range answer {
			if i < len(g) {
				out[index[g[i]]] = a
			}
		}
	}
	return out, nil
}

// dryRun creates, or updates if it exists, o with dryRun=All: validation and
// admission as an apply would meet them, nothing stored.
func dryRun(ctx context.Context, c client.Client, o *unstructured.Unstructured) error {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(o), cur)
	switch {
	case apierrors.IsNotFound(err):
		return c.Create(ctx, o.DeepCopy(), client.DryRunAll)
	case err != nil:
		return err
	}
	u := o.DeepCopy()
	u.SetResourceVersion(cur.GetResourceVersion())
	return c.Update(ctx, u, client.DryRunAll)
}

// askOperator creates a Plan of objs, waits for the operator's answer, and
// deletes the Plan.
func askOperator(ctx context.Context, c client.Client, namespace string, objs []*unstructured.Unstructured) ([]planv1alpha1.PlannedObject, error) {
	p := &planv1alpha1.Plan{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "plan-"}}
	for _, o := range objs {
		raw, err := json.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		p.Spec.Objects = append(p.Spec.Objects, runtime.RawExtension{Raw: raw})
	}
	if err := c.Create(ctx, p); err != nil {
		if apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("you may not create Plans (create plans.plan.aztenant.io) in namespace %q: the aztenant edit role gives it: %w", namespace, err)
		}
		return nil, err
	}
	defer func() {
		// A new context: the plan's may be over; the operator deletes a stale one too.
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Delete(dctx, p)
	}()
	err := wait.PollUntilContextCancel(ctx, 300*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			return false, err
		}
		r := meta.FindStatusCondition(p.Status.Conditions, planning.ConditionReady)
		return r != nil && r.Status == metav1.ConditionTrue && p.Status.ObservedGeneration == p.Generation, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the operator to answer Plan %s/%s (is the aztenant operator running and serving namespace %q?): %w", namespace, p.Name, namespace, err)
	}
	return p.Status.Objects, nil
}

// Print writes the answer as text (one line per object, then its message and
// differences) or as JSON ({"objects": [...]}).
func Print(w io.Writer, format string, objs []planv1alpha1.PlannedObject) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"objects": objs})
	}
	for _, o := range objs {
		fmt.Fprintf(w, "%-13s %s %s", o.Action, o.Kind, o.Name)
		if o.Reason != "" {
			fmt.Fprintf(w, " (%s)", o.Reason)
		}
		fmt.Fprintln(w)
		if o.Message != "" {
			fmt.Fprintf(w, "    %s\n", o.Message)
		}
		for _, d := range o.Differences {
			fmt.Fprintf(w, "    ~ %s: %s -> %s\n", d.Path, d.Actual, d.Desired)
		}
		for _, d := range o.KeptByAzure {
			fmt.Fprintf(w, "    = %s: Azure keeps %s (the spec says %s)\n", d.Path, d.Actual, d.Desired)
		}
	}
	return nil
}
