package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers/planning"
)

// exitCode ends the command with a code of its own after it has printed its
// answer (plan: 2 for changes, 1 for refusals).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func newPlanCommand() *cobra.Command {
	var namespace, kubeconfig, output string
	var files []string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "plan -f FILE_OR_DIR... -n NAMESPACE",
		Short: "Show what applying manifests would do in Azure, without writing anything",
		Long: `plan shows, for each aztenant object in the manifests (files, or folders searched
recursively), what applying it in NAMESPACE would do in Azure: Create, Update (with
each path that would change, Azure's value and the spec's), NoChange, NeedsAdoption
(it exists in Azure and is not the object's) or Denied (refused by the API server's
validation or admission in a server-side dry run, by the Tenant's bounds, by the
policy library or by a reference outside the namespace); Unknown when it cannot be
told (an owner neither in the cluster nor in the manifests).

It needs only the rights the aztenant edit role gives: the dry runs are yours, and
Azure is read by the operator with the namespace's own identity, through a Plan
object that plan creates, waits for and deletes. Nothing is written to Azure, and
nothing stays in the cluster. Other objects (Secrets, ConfigMaps) are not planned.

Exit code: 0 when nothing would change, 2 when something would (Create, Update,
NeedsAdoption), 1 when something is Denied or Unknown; so a CI job (an Argo CD or
Flux pull request check) can fail or comment on it.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if namespace == "" || len(files) == 0 {
				return fmt.Errorf("-f (files or folders) and -n (namespace) are required")
			}
			if output != "text" && output != "json" {
				return fmt.Errorf("-o %q: want text or json", output)
			}
			docs, err := policy.ReadManifests(files...)
			if err != nil {
				return err
			}
			c, err := kubeClient(kubeconfig)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			objs, err := plan(ctx, c, namespace, docs)
			if err != nil {
				return err
			}
			if err := printPlan(cmd.OutOrStdout(), output, objs); err != nil {
				return err
			}
			return planExit(objs)
		},
	}
	cmd.Flags().StringSliceVarP(&files, "filename", "f", nil, "manifests: files or folders (repeatable)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "the namespace the manifests would be applied in")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "how long to wait for the operator's answer")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	return cmd
}

// plan dry-runs each aztenant object as the user, then asks the operator about
// those the API server accepts.
func plan(ctx context.Context, c client.Client, namespace string, docs []*unstructured.Unstructured) ([]planv1alpha1.PlannedObject, error) {
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
	answer, err := askOperator(ctx, c, namespace, send)
	if err != nil {
		return nil, err
	}
	for i, a := range answer {
		if i < len(index) {
			out[index[i]] = a
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

func printPlan(w io.Writer, format string, objs []planv1alpha1.PlannedObject) error {
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
	}
	return nil
}

func planExit(objs []planv1alpha1.PlannedObject) error {
	code := 0
	for _, o := range objs {
		switch o.Action {
		case planv1alpha1.ActionDenied, planv1alpha1.ActionUnknown:
			return exitCode(1)
		case planv1alpha1.ActionCreate, planv1alpha1.ActionUpdate, planv1alpha1.ActionNeedsAdoption:
			code = 2
		}
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}
