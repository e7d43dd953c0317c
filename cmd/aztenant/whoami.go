package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

func newWhoamiCommand() *cobra.Command {
	var namespace, name, kubeconfig string
	cmd := &cobra.Command{
		Use:   "whoami -n NAMESPACE [--identity NAME]",
		Short: "Show which Azure identity a namespace acts as, as the operator last exchanged it",
		Long: `whoami reads the Identity that serves a namespace (the one named "default", or
--identity) and prints what the operator found when it last exchanged the
Identity's ServiceAccount token with Entra ID: the principal, client ID, tenant,
subscription and when. Only the operator may obtain that token (admission
reserves the provisioner account for it), so this needs nothing but read access
to Identities, which the view and edit roles give. It never prints a token.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if namespace == "" {
				return fmt.Errorf("--namespace (-n) is required")
			}
			c, err := kubeClient(kubeconfig)
			if err != nil {
				return err
			}
			return whoami(cmd.Context(), cmd.OutOrStdout(), c, namespace, name)
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "the tenant namespace")
	cmd.Flags().StringVar(&name, "identity", identity.DefaultIdentityName, "the Identity to use, in that namespace")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
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

func whoami(ctx context.Context, out io.Writer, c client.Client, ns, name string) error {
	var id identityv1alpha1.Identity
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &id); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("no Identity %q in namespace %q: ask your platform team to onboard the namespace (an Identity binds its provisioner ServiceAccount to an Azure identity)", name, ns)
		case apierrors.IsForbidden(err):
			return fmt.Errorf("you may not read Identities (get identities.identity.aztenant.io) in namespace %q: the view or edit role of the namespace gives it: %w", ns, err)
		}
		return err
	}
	ready := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
	switch {
	case ready == nil || ready.ObservedGeneration != id.Generation:
		return fmt.Errorf("the Identity %s/%s has not been checked by the operator yet (is it running, and does it serve namespace %q?)", ns, name, ns)
	case ready.Status != metav1.ConditionTrue:
		return fmt.Errorf("the Identity %s/%s does not work: %s: %s", ns, name, ready.Reason, ready.Message)
	}
	sa := id.Spec.ServiceAccountName
	last := "never"
	if id.Status.LastExchangeTime != nil {
		last = id.Status.LastExchangeTime.UTC().Format(time.RFC3339)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, row := range [][2]string{
		{"Identity", ns + "/" + name},
		{"ServiceAccount", ns + "/" + sa},
		{"Federated subject", "system:serviceaccount:" + ns + ":" + sa},
		{"Client ID", id.Status.ClientID},
		{"Principal (object ID)", id.Status.PrincipalID},
		{"Tenant", id.Status.TenantID},
		{"Subscription", id.Spec.SubscriptionID},
		{"Last exchange", last},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}
