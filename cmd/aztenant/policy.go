package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aztenant/aztenant/policy"
)

// errViolations makes the command exit non-zero without printing more.
var errViolations = errors.New("policy violations found")

func newPolicyCommand() *cobra.Command {
	var engine string
	cmd := &cobra.Command{Use: "policy", Short: "The Gatekeeper constraint library, offline"}
	test := &cobra.Command{
		Use:   "test FILE_OR_DIR...",
		Short: "Check manifests against the policy library, like gator test; exits 1 on a violation",
		Long: `test reads YAML or JSON manifests (files, or folders searched recursively) and
evaluates the aztenant policy library against them offline. Constraints and extra
ConstraintTemplates among the inputs are used; without any constraint, the library's
sample constraints apply. Namespace objects among the inputs are passed to the rules
that read namespace annotations (public network opt-in, allowed resource groups).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := parseEngine(engine)
			if err != nil {
				return err
			}
			return policyTest(cmd.Context(), cmd.OutOrStdout(), args, e)
		},
	}
	test.Flags().StringVar(&engine, "engine", "default", "policy engine: default (CEL where a template has it, as Gatekeeper), cel or rego")
	cmd.AddCommand(test)
	return cmd
}

func parseEngine(s string) (policy.Engine, error) {
	switch s {
	case "default":
		return policy.EngineDefault, nil
	case "cel":
		return policy.EngineCEL, nil
	case "rego":
		return policy.EngineRego, nil
	}
	return policy.EngineDefault, fmt.Errorf("--engine %q: want default, cel or rego", s)
}

func policyTest(ctx context.Context, out io.Writer, paths []string, engine policy.Engine) error {
	objs, err := policy.ReadManifests(paths...)
	if err != nil {
		return err
	}
	var namespaces []*corev1.Namespace
	haveConstraint := false
	for _, u := range objs {
		if u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1" {
			var ns corev1.Namespace
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ns); err != nil {
				return fmt.Errorf("namespace %s: %w", u.GetName(), err)
			}
			namespaces = append(namespaces, &ns)
		}
		if u.GetAPIVersion() == "constraints.gatekeeper.sh/v1beta1" {
			haveConstraint = true
		}
	}
	if !haveConstraint {
		samples, err := sampleConstraints()
		if err != nil {
			return err
		}
		objs = append(objs, samples...)
	}
	violations, err := policy.Evaluate(ctx, objs, namespaces, policy.WithEngine(engine))
	if err != nil {
		return err
	}
	denied := 0
	for _, v := range violations {
		fmt.Fprintln(out, v.String())
		if v.EnforcementAction == "" || v.EnforcementAction == "deny" {
			denied++
		}
	}
	if denied > 0 {
		fmt.Fprintf(out, "%d violation(s)\n", denied)
		return errViolations
	}
	fmt.Fprintln(out, "no violations")
	return nil
}

// sampleConstraints are the library's own constraints (samples/*/constraint.yaml).
func sampleConstraints() ([]*unstructured.Unstructured, error) {
	lib := policy.Library()
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
		objs, err := policy.DecodeManifests(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}
