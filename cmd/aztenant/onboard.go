package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

type onboardOptions struct {
	namespace, subscription, tenantID, issuer, location, identityGroup string
	resourceGroups, roles                                              []string
	print                                                              bool
}

func newOnboardCommand() *cobra.Command {
	var o onboardOptions
	cmd := &cobra.Command{
		Use:   "onboard NAMESPACE --print --subscription ID --tenant-id ID --issuer URL",
		Short: "Print the az CLI commands and manifests that give a namespace its own Azure identity",
		Long: `onboard prints what a platform team runs to onboard a namespace by hand: a
user-assigned managed identity, its federated credential trusting the namespace's
provisioner ServiceAccount (aztenant-provisioner, which the chart's admission
policies reserve for the operator) at the cluster's issuer, the resource groups and a Contributor role
assignment on each (and nothing wider), then kubectl applying the ServiceAccount, Identity
and Tenant. The output is a shell script: run it, or read it and run it step by step. Names and roles are those the operator uses when it onboards a Tenant's
namespaces itself (spec.onboarding, with the operator flag --platform-identity);
this command is for clusters without a platform identity, so --print is required.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.namespace = args[0]
			if !o.print {
				return fmt.Errorf("only --print is supported: to have the operator onboard, set spec.onboarding on the Tenant and run the operator with --platform-identity")
			}
			return printOnboarding(cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().BoolVar(&o.print, "print", false, "print the commands and manifests instead of running them")
	cmd.Flags().StringVar(&o.subscription, "subscription", "", "subscription the namespace's resources live in (required)")
	cmd.Flags().StringVar(&o.tenantID, "tenant-id", "", "Entra ID tenant (required)")
	cmd.Flags().StringVar(&o.issuer, "issuer", "", "the cluster's service-account issuer URL (required; AKS: az aks show --query oidcIssuerProfile.issuerUrl)")
	cmd.Flags().StringVar(&o.location, "location", "westeurope", "Azure region of the identity and resource groups")
	cmd.Flags().StringVar(&o.identityGroup, "identity-resource-group", onboarding.DefaultIdentityResourceGroup, "resource group holding the teams' managed identities (managed by the platform team; the namespace gets no role on it)")
	cmd.Flags().StringSliceVar(&o.roles, "role", []string{onboarding.DefaultRole}, "built-in roles granted on each resource group (never Owner, User Access Administrator or Role Based Access Control Administrator)")
	cmd.Flags().StringSliceVar(&o.resourceGroups, "resource-group", nil, "resource groups the namespace may use (default: <namespace>-app)")
	return cmd
}

func printOnboarding(out io.Writer, o onboardOptions) error {
	var missing []string
	for flag, v := range map[string]string{"--subscription": o.subscription, "--tenant-id": o.tenantID, "--issuer": o.issuer} {
		if v == "" {
			missing = append(missing, flag)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if errs := validation.IsDNS1123Label(o.namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", o.namespace, errs[0])
	}
	if !strings.HasPrefix(o.issuer, "https://") {
		return fmt.Errorf("--issuer %q: Entra ID only trusts https issuers", o.issuer)
	}
	if len(o.resourceGroups) == 0 {
		o.resourceGroups = []string{o.namespace + "-app"}
	}
	if len(o.roles) == 0 {
		o.roles = []string{onboarding.DefaultRole}
	}
	for _, role := range o.roles {
		if _, err := onboarding.CheckRole(role); err != nil {
			return fmt.Errorf("--role: %w", err)
		}
	}
	for _, rg := range o.resourceGroups {
		if strings.EqualFold(rg, o.identityGroup) {
			return fmt.Errorf("--resource-group %s is the identity resource group: the namespace must get no role on its own identity", rg)
		}
	}
	subject := onboarding.Subject(o.namespace, identity.ProvisionerServiceAccount)
	identityName := onboarding.IdentityName(o.namespace)
	fmt.Fprintf(out, `# 1. In Azure (az CLI): identity %[1]s for namespace %[7]s, trusting only %[2]s
az account set --subscription %[3]s
az group create -n %[4]s -l %[5]s
az identity create -g %[4]s -n %[1]s -l %[5]s
CLIENT_ID=$(az identity show -g %[4]s -n %[1]s --query clientId -o tsv)
PRINCIPAL_ID=$(az identity show -g %[4]s -n %[1]s --query principalId -o tsv)
az identity federated-credential create -g %[4]s --identity-name %[1]s -n %[8]s \
  --issuer %[6]s --subject %[2]s --audiences %[9]s
`, identityName, subject, o.subscription, o.identityGroup, o.location, o.issuer, o.namespace,
		onboarding.FederatedCredentialName(o.namespace), onboarding.TokenAudience)
	for _, rg := range o.resourceGroups {
		fmt.Fprintf(out, "az group create -n %s -l %s\n", rg, o.location)
		for _, role := range o.roles {
			fmt.Fprintf(out, `az role assignment create --assignee-object-id "$PRINCIPAL_ID" --assignee-principal-type ServicePrincipal \
  --role %q --scope %s
`, role, onboarding.ResourceGroupID(o.subscription, rg))
		}
	}
	fmt.Fprintf(out, `
# 2. In the cluster: the shell fills in $CLIENT_ID from above. The Identity
# carries the client ID: admission lets only the operator set the reserved
# account's workload-identity annotations.
kubectl apply -f - <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[2]s
  namespace: %[1]s
---
apiVersion: identity.aztenant.io/v1alpha1
kind: Identity
metadata:
  name: default
  namespace: %[1]s
spec:
  serviceAccountName: %[2]s
  clientID: ${CLIENT_ID}
  tenantID: %[3]s
  subscriptionID: %[4]s
---
apiVersion: tenancy.aztenant.io/v1alpha1
kind: Tenant
metadata:
  name: %[1]s
spec:
  namespaces: [%[1]s]
  subscriptions: [%[4]s]
  resourceGroups: [%[5]s]
  locations: [%[6]s]
EOF
`, o.namespace, identity.ProvisionerServiceAccount, o.tenantID, o.subscription, strings.Join(quoteAll(o.resourceGroups), ", "), o.location)
	fmt.Fprintf(out, "\n# 3. Check: aztenant whoami -n %s\n", o.namespace)
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
