package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/asoconvert"
	"github.com/aztenant/aztenant/policy"
)

// errNotConverted makes convert exit 3 once it has printed what it could.
var errNotConverted = errors.New("some of the input has no equivalent in aztenant (listed above)")

func newConvertCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "convert FILE_OR_DIR...",
		Short: "Turn Azure Service Operator v2 manifests into aztenant manifests",
		Long: `convert reads YAML or JSON manifests (files, or folders searched recursively)
written for Azure Service Operator v2 and prints them as aztenant manifests, for
kubectl apply -f -: every ASO group and API version (network.azure.com/v1api20240301)
becomes aztenant's group at v1alpha1 (network.aztenant.io/v1alpha1), references by
kind and name get aztenant's groups, owners, secrets and config-map exports keep
their shape, and ASO's annotations are mapped (reconcile-policy skip becomes observe;
resource-id, which says the resource exists, becomes aztenant.io/adopt: "true").
Other objects (Secrets, ConfigMaps) pass unchanged.

Anything without an equivalent is listed on stderr, never dropped silently: a kind
aztenant does not have, a field its kind lacks, credential-from (aztenant acts as the
namespace's Identity, never a Secret's credential). Then convert exits 3.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			docs, err := policy.ReadManifests(args...)
			if err != nil {
				return err
			}
			scheme := runtime.NewScheme()
			if err := api.AddToScheme(scheme); err != nil {
				return err
			}
			res := asoconvert.Convert(docs, scheme)
			if err := printObjects(cmd.OutOrStdout(), res.Objects); err != nil {
				return err
			}
			for _, f := range res.Findings {
				fmt.Fprintln(cmd.ErrOrStderr(), f)
			}
			if res.Lost() {
				return errNotConverted
			}
			return nil
		},
	}
}

func printObjects(w io.Writer, objs []*unstructured.Unstructured) error {
	for i, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}
