package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/controlplane"
)

const demoDirDefault = ".aztenant/demo"

func newDemoCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the product locally on a real kube-apiserver and etcd",
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", demoDirDefault, "folder for the demo's certificates, data, logs and kubeconfig")
	cmd.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "Start the local control plane, install the CRDs and show a tenant's federated token",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return demoUp(cmd.Context(), cmd.OutOrStdout(), dir)
		},
	}, &cobra.Command{
		Use:   "down",
		Short: "Stop what `demo up` started and remove its folder",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := controlplane.StopDir(dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stopped; removing %s\n", dir)
			return os.RemoveAll(dir)
		},
	})
	return cmd
}

func demoUp(ctx context.Context, out io.Writer, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); err == nil {
		return fmt.Errorf("a demo is already running in %s: run `make demo-down` first", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	step := func(format string, args ...any) { fmt.Fprintf(out, "==> "+format+"\n", args...) }

	step("starting etcd and kube-apiserver (state in %s)", abs)
	start := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: abs, Detach: true})
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return err
	}
	step("kube-apiserver %s ready at %s in %s", v.GitVersion, cp.Config.Host, time.Since(start).Round(time.Millisecond))

	crds, err := api.CRDs()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	for _, c := range crds {
		step("installed CRD %s", c.Name)
	}

	// What the credential broker does for every tenant namespace: a short-lived token
	// for a ServiceAccount of that namespace, with the audience Entra ID expects.
	const ns, sa = "team-a", "azure"
	if err := ensureServiceAccount(ctx, cs, ns, sa); err != nil {
		return err
	}
	expiry := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"api://AzureADTokenExchange"}, ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("TokenRequest: %w", err)
	}
	claims, err := tokenClaims(tr.Status.Token)
	if err != nil {
		return err
	}
	step("ServiceAccount %s/%s token claims (the token itself is never printed):", ns, sa)
	for _, k := range []string{"iss", "sub", "aud", "exp"} {
		fmt.Fprintf(out, "      %-4s %v\n", k, claims[k])
	}
	step("issuer discovery is public, as Entra ID needs: %s/.well-known/openid-configuration", cp.IssuerURL)

	fmt.Fprintf(out, `
The local control plane keeps running. Try:
  export KUBECONFIG=%s
  bin/kubectl get crds
  bin/kubectl -n %s create token %s --audience api://AzureADTokenExchange
Stop it with:
  make demo-down
`, cp.KubeconfigPath, ns, sa)
	return nil
}

func ensureServiceAccount(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// tokenClaims decodes a JWT's payload for display; it does not verify it.
func tokenClaims(token string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("TokenRequest returned something that is not a JWT")
	}
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, err
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	if exp, ok := c["exp"].(float64); ok {
		c["exp"] = time.Unix(int64(exp), 0).UTC().Format(time.RFC3339)
	}
	return c, nil
}
