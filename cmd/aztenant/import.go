package main

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/azimport"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// errNotImported makes import exit 3 once it has printed what it could.
var errNotImported = fmt.Errorf("some resources or values were not imported (listed above)")

func newImportCommand() *cobra.Command {
	var namespace, subscription, group, armEndpoint, authority, audience string
	var ids []string
	cmd := &cobra.Command{
		Use:   "import (--resource-group NAME --subscription ID | --id ARM_ID...) -n NAMESPACE",
		Short: "Turn existing Azure resources into aztenant manifests that adopt them",
		Long: `import reads existing Azure resources and prints them as aztenant manifests for
kubectl apply -f -: a resource group with every resource in it, their children
(subnets, rules, containers, credentials ...) and the role assignments made on each,
or the resources --id names. Each object is linked to its owner by name and
annotated aztenant.io/adopt: "true", with the values Azure holds for its writable
fields, so applying it takes the resource over without changing it (aztenant adds
only its owner marker tag). Secrets are never copied (Azure does not return
write-only values; a spec field needing one is listed). A resource no aztenant kind
covers is listed as NOT IMPORTED, and import exits 3.

Azure is read with your own credential (azidentity's DefaultAzureCredential:
environment, workload identity, managed identity or az login); Reader on what is
imported is enough. Set --arm-endpoint and --authority-host for other clouds.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if namespace == "" || (group == "") == (len(ids) == 0) || (group != "" && subscription == "") {
				return fmt.Errorf("give -n and either --resource-group with --subscription, or --id")
			}
			opts := azcore.ClientOptions{}
			if armEndpoint != "" || authority != "" {
				opts.Cloud = cloud.Configuration{ActiveDirectoryAuthorityHost: authority,
					Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: armEndpoint, Audience: audience}}}
			} else {
				opts.Cloud = cloud.AzurePublic
			}
			cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: opts})
			if err != nil {
				return err
			}
			cl, err := arm.NewClient("aztenant-import", "v0.1.0", cred, &arm.ClientOptions{ClientOptions: policy.ClientOptions(opts), DisableRPRegistration: true})
			if err != nil {
				return err
			}
			scheme := runtime.NewScheme()
			if err := api.AddToScheme(scheme); err != nil {
				return err
			}
			reg, err := reconcilers.NewRegistry(scheme, kinds.All()...)
			if err != nil {
				return err
			}
			im := &azimport.Importer{Client: cl, Registry: reg, Scheme: scheme, Namespace: namespace}
			var res azimport.Result
			if group != "" {
				res, err = im.ResourceGroup(cmd.Context(), subscription, group)
			} else {
				res, err = im.IDs(cmd.Context(), ids...)
			}
			if err != nil {
				return err
			}
			if err := printObjects(cmd.OutOrStdout(), res.Objects); err != nil {
				return err
			}
			missed := false
			for _, f := range res.Findings {
				fmt.Fprintln(cmd.ErrOrStderr(), f)
				missed = missed || f.Missed
			}
			if missed {
				return errNotImported
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "the namespace of the manifests")
	cmd.Flags().StringVar(&subscription, "subscription", "", "subscription ID of --resource-group")
	cmd.Flags().StringVar(&group, "resource-group", "", "import this resource group with everything in it")
	cmd.Flags().StringSliceVar(&ids, "id", nil, "ARM IDs to import (with their children), repeatable")
	cmd.Flags().StringVar(&armEndpoint, "arm-endpoint", "", "Azure Resource Manager endpoint (default: public cloud)")
	cmd.Flags().StringVar(&authority, "authority-host", "", "Entra ID authority host (with --arm-endpoint)")
	cmd.Flags().StringVar(&audience, "arm-audience", "https://management.core.windows.net/", "token audience of --arm-endpoint")
	return cmd
}
