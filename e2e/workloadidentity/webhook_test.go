package workloadidentity

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/aztenant/aztenant/internal/pki"
)

const (
	// webhookPort is where cmd/webhook serves: controller-runtime's default
	// (9443, on every interface). v1.5.1 has no flag to change it, so one
	// test at a time runs it on a machine.
	webhookPort = 9443
	// webhookConfigName and the webhook's name are the chart's.
	webhookConfigName = "azure-wi-webhook-mutating-webhook-configuration"
	// useLabel selects the pods the webhook mutates (the chart's objectSelector).
	useLabel = "azure.workload.identity/use"
	// within bounds every wait of this package.
	within = 60 * time.Second
)

// webhookBinary is bin/azure-wi-webhook; the test fails without it.
func webhookBinary(t *testing.T) string {
	t.Helper()
	dir, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "azure-wi-webhook")
	if _, err := os.Stat(bin); err != nil {
		// Like a missing kube-apiserver: make test builds it first.
		t.Fatalf("bin/azure-wi-webhook is missing (%v): run `make tools`", err)
	}
	return bin
}

// startWebhook runs the real azure-workload-identity webhook out of cluster,
// for the cloud whose Entra ID is authorityHost, and registers it as the
// pods' mutating webhook in the given namespaces, as the chart does. Both are
// undone when the test ends (the configuration first).
func startWebhook(t *testing.T, env *testenv.Env, bin, tenantID, authorityHost string, namespaces ...string) {
	t.Helper()
	dir := t.TempDir()
	caPEM := writeServingCert(t, dir)
	// AZURE_AUTHORITY_HOST is not read from the environment: the webhook takes
	// the active directory endpoint of the go-autorest environment named by
	// AZURE_ENVIRONMENT, and only AzureStackCloud reads its endpoints from a
	// file (AZURE_ENVIRONMENT_FILEPATH).
	cloudFile := filepath.Join(dir, "cloud.json")
	cloudJSON, err := json.Marshal(map[string]string{"name": "AztenantEmulator", "activeDirectoryEndpoint": authorityHost})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cloudFile, cloudJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	waitPortFree(t, webhookPort)
	healthPort, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}

	logPath := filepath.Join(dir, "azure-wi-webhook.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--kubeconfig="+env.KubeconfigPath,
		// Out of cluster: our certificate, no Secret or webhook configuration
		// for it to manage.
		"--disable-cert-rotation", "--webhook-cert-dir="+dir,
		"--audience="+identity.TokenAudience,
		"--health-addr=127.0.0.1:"+strconv.Itoa(healthPort),
		"--metrics-addr=0",
		"--log-level=info",
	)
	cmd.Env = append(os.Environ(),
		"AZURE_TENANT_ID="+tenantID,
		"AZURE_ENVIRONMENT=AzureStackCloud",
		"AZURE_ENVIRONMENT_FILEPATH="+cloudFile,
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// A test binary killed by a timeout takes the webhook with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start azure-wi-webhook: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); logFile.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("azure-wi-webhook log (%s, last lines):\n%s", logPath, controlplane.Tail(logPath, 40))
		}
	})

	// Ready: /readyz answers once the pod mutator is registered, and the
	// webhook's TLS listener presents our certificate.
	start := time.Now()
	ready := func() error {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", webhookPort), &tls.Config{RootCAs: pool(caPEM), ServerName: "127.0.0.1"})
		if err != nil {
			return err
		}
		return conn.Close()
	}
	testenv.Eventually(t, within, "azure-wi-webhook ready", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("azure-wi-webhook exited (%v); log:\n%s", waitErr, controlplane.Tail(logPath, 40))
		default:
		}
		if err := ready(); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	t.Logf("azure-wi-webhook ready in %v", time.Since(start).Round(10*time.Millisecond))

	// The chart's configuration, pointed at the process instead of a Service,
	// and limited to the test's namespaces.
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookConfigName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mutation.azure-workload-identity.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL:      ptr.To(fmt.Sprintf("https://127.0.0.1:%d/mutate-v1-pod", webhookPort)),
				CABundle: caPEM,
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{useLabel: "true"}},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: namespaces,
			}}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	if err := env.Client.Create(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Registered after the process cleanup, so it runs before it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := env.Client.Delete(ctx, cfg); err != nil {
			t.Errorf("delete webhook configuration: %v", err)
		}
	})
}

// waitPortFree waits until nothing listens on the port (another run of this
// test may hold it), failing the test after within.
func waitPortFree(t *testing.T, port int) {
	t.Helper()
	var err error
	_ = wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, within, true, func(context.Context) (bool, error) {
		var l net.Listener
		if l, err = net.Listen("tcp", fmt.Sprintf(":%d", port)); err == nil {
			l.Close()
			return true, nil
		}
		return !errors.Is(err, syscall.EADDRINUSE), nil
	})
	if err == nil {
		return
	}
	t.Fatalf("port %d, where azure-wi-webhook serves, stays in use: %v", port, err)
}

// writeServingCert writes tls.crt and tls.key for 127.0.0.1 into dir and
// returns the CA that signed them, for the webhook's caBundle.
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	caPEM, err := pki.WriteServing(dir, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return caPEM
}

func pool(caPEM []byte) *x509.CertPool { return pki.PoolOf(caPEM) }
