package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

func newWhoamiCommand() *cobra.Command {
	var (
		namespace, name, kubeconfig string
		cloudFlags                  identity.CloudFlags
	)
	cmd := &cobra.Command{
		Use:   "whoami -n NAMESPACE [--identity NAME]",
		Short: "Show which Azure identity a namespace acts as, after a real token exchange",
		Long: `whoami resolves the Identity that serves a namespace (the one named "default",
or --identity), requests a token for its ServiceAccount with your Kubernetes
credentials, exchanges it with Entra ID, and prints the principal, tenant,
subscription and token expiry. It never prints a token.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if namespace == "" {
				return fmt.Errorf("--namespace (-n) is required")
			}
			cloud, err := cloudFlags.Cloud()
			if err != nil {
				return err
			}
			c, err := kubeClient(kubeconfig)
			if err != nil {
				return err
			}
			return whoami(cmd.Context(), cmd.OutOrStdout(), c, cloud, namespace, name)
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "the tenant namespace")
	cmd.Flags().StringVar(&name, "identity", identity.DefaultIdentityName, "the Identity to use, in that namespace")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	cloudFlags.Bind(cmd.Flags())
	return cmd
}

func kubeClient(kubeconfig string) (client.Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := api.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

func whoami(ctx context.Context, out io.Writer, c client.Client, cloud identity.Cloud, ns, name string) error {
	var id identityv1alpha1.Identity
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &id); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return fmt.Errorf("no Identity %q in namespace %q: ask your platform team to onboard the namespace (an Identity binds one of its ServiceAccounts to an Azure identity)", name, ns)
		}
		return err
	}
	res, err := identity.ResolveIdentity(ctx, c, &id)
	if err != nil {
		return err
	}
	opts, err := cloud.ClientOptions()
	if err != nil {
		return err
	}
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: c}, time.Hour)
	cred, err := identity.NewCredentials(tokens, opts).For(res)
	if err != nil {
		return err
	}
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{cloud.ARMScope()}, EnableCAE: true})
	if err != nil {
		scope := identity.Scope{Namespace: ns, Identity: name, ServiceAccount: res.ServiceAccount, ClientID: res.ClientID, TenantID: res.TenantID}
		return identity.AsFederationError(err, scope)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, row := range [][2]string{
		{"Identity", ns + "/" + name},
		{"ServiceAccount", ns + "/" + res.ServiceAccount},
		{"Federated subject", "system:serviceaccount:" + ns + ":" + res.ServiceAccount},
		{"Client ID", res.ClientID},
		{"Principal (object ID)", identity.PrincipalOf(tok.Token)},
		{"Tenant", res.TenantID},
		{"Subscription", res.SubscriptionID},
		{"Token expires", tok.ExpiresOn.UTC().Format(time.RFC3339)},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}
