package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/internal/planclient"
	"github.com/aztenant/aztenant/policy"
)

// exitCode ends the command with a code of its own after it has printed its
// answer (plan: 2 for changes, 1 for refusals; convert and import: 3 for what
// did not carry over).
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
			objs, err := planclient.Plan(ctx, c, namespace, docs)
			if err != nil {
				return err
			}
			if err := planclient.Print(cmd.OutOrStdout(), output, objs); err != nil {
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
