package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/policy/vap"
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
that read namespace annotations (public network opt-in, allowed resource groups).
A manifest is checked as created by no particular user; an AdmissionReview
(admission.k8s.io/v1, as gator verify accepts) is checked as its request, with its
user, operation and oldObject (the reserved provisioner account's rules need them).`,
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

	var allowUnsupported bool
	vapCmd := &cobra.Command{
		Use:   "vap [FILE_OR_DIR...]",
		Short: "Print ValidatingAdmissionPolicies enforcing the library's CEL rules without Gatekeeper",
		Long: `vap prints, as YAML for kubectl apply, one ValidatingAdmissionPolicy and binding
(admissionregistration.k8s.io/v1) per constraint, made from its ConstraintTemplate's CEL
(K8sNativeValidation) code. The constraint's parameters and match are inlined, so the
output needs no Gatekeeper and none of its CRDs; regenerate it when a constraint changes.
Constraints and extra ConstraintTemplates are read from the arguments (files, or folders
searched recursively); without any constraint, the library's sample constraints are used.
A template or constraint that cannot be expressed (Rego only, a match VAP cannot express,
a CEL expression the API server would refuse) is listed with why, as comments in the
output and on stderr, and the command exits 1 unless --allow-unsupported.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return policyVAP(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, allowUnsupported)
		},
	}
	vapCmd.Flags().BoolVar(&allowUnsupported, "allow-unsupported", false, "exit 0 even if some templates or constraints were not converted")
	cmd.AddCommand(test, vapCmd)
	return cmd
}

// errUnsupported makes `policy vap` exit non-zero after listing what it left out.
var errUnsupported = errors.New("some constraints were not converted to ValidatingAdmissionPolicy")

func policyVAP(out, errOut io.Writer, paths []string, allowUnsupported bool) error {
	var objs []*unstructured.Unstructured
	if len(paths) > 0 {
		var err error
		if objs, err = policy.ReadManifests(paths...); err != nil {
			return err
		}
	}
	extra, constraints, _, err := policy.SplitManifests(objs)
	if err != nil {
		return err
	}
	tmpls, err := policy.Templates()
	if err != nil {
		return err
	}
	// Given templates come last, so they replace library ones of the same kind.
	tmpls = append(tmpls, extra...)
	if len(constraints) == 0 {
		if constraints, err = policy.SampleConstraints(); err != nil {
			return err
		}
	}
	res, err := vap.Generate(tmpls, constraints)
	if err != nil {
		return err
	}
	if err := res.WriteYAML(out); err != nil {
		return err
	}
	for _, u := range res.Unsupported {
		fmt.Fprintf(errOut, "not converted: %v\n", u)
	}
	if len(res.Unsupported) > 0 && !allowUnsupported {
		return errUnsupported
	}
	return nil
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
		samples, err := policy.SampleConstraints()
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
