package kinds_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

func storageAccountID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.Storage/storageAccounts/" + name
}

// platformAction POSTs an ARM action (listKeys, regenerateKey ...) as the
// platform principal, as an administrator would outside aztenant.
func (s *stack) platformAction(t *testing.T, id, action, apiVersion string, body any) map[string]any {
	t.Helper()
	opts := s.Emu.ClientOptions()
	cred, err := azidentity.NewClientSecretCredential(tenantID, platformClientID, platformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	must(t, err)
	cl, err := arm.NewClient("aztenant-test", "v0.0.1", cred, &arm.ClientOptions{ClientOptions: opts, DisableRPRegistration: true})
	must(t, err)
	req, err := runtime.NewRequest(context.Background(), http.MethodPost, runtime.JoinPaths(cl.Endpoint(), id, action))
	must(t, err)
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	if body != nil {
		must(t, runtime.MarshalAsJSON(req, body))
	}
	resp, err := cl.Pipeline().Do(req)
	must(t, err)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", action, resp.Status)
	}
	var out map[string]any
	must(t, runtime.UnmarshalAsJSON(resp, &out))
	return out
}

// secretData reads a Secret's data as strings.
func (s *stack) secretData(t *testing.T, ns, name string) (map[string]string, *corev1.Secret) {
	t.Helper()
	var sec corev1.Secret
	must(t, s.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &sec))
	out := map[string]string{}
	for k, v := range sec.Data {
		out[k] = string(v)
	}
	return out, &sec
}

func storageKey(keys map[string]any, name string) string {
	for _, k := range keys["keys"].([]any) {
		if m := k.(map[string]any); m["keyName"] == name {
			return m["value"].(string)
		}
	}
	return ""
}

// A storage account and a blob container: each waits for its owner, is created
// with one PUT, exports keys and endpoints to a Secret and a ConfigMap it owns;
// a spec change writes once, a resync writes nothing, a TLS setting weakened in
// the portal is put back, a regenerated key reaches the Secret on
// aztenant.io/refresh-secrets, and deletion removes both from Azure.
func TestStorageAccountLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "sa"
	s := newStack(t, ns)
	ctx := t.Context()

	sa := &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "saapp"},
		Spec: storagev1alpha1.StorageAccountSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "sa-rg"}, Location: "westeurope", Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}, MinimumTLSVersion: "TLS1_2",
			Tags: map[string]string{"team": "a"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{
				Secrets: &storagev1alpha1.StorageAccountOperatorSecrets{
					Key1:         &azurev1alpha1.SecretDestination{Name: "saapp-keys", Key: "key1"},
					Key2:         &azurev1alpha1.SecretDestination{Name: "saapp-keys", Key: "key2"},
					BlobEndpoint: &azurev1alpha1.SecretDestination{Name: "saapp-keys", Key: "blob"},
				},
				ConfigMaps: &storagev1alpha1.StorageAccountOperatorConfigMaps{
					BlobEndpoint:  &azurev1alpha1.ConfigMapDestination{Name: "saapp-endpoints", Key: "blob"},
					QueueEndpoint: &azurev1alpha1.ConfigMapDestination{Name: "saapp-endpoints", Key: "queue"},
				},
			},
		},
	}
	container := &storagev1alpha1.StorageAccountsBlobServicesContainer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Spec: storagev1alpha1.StorageAccountsBlobServicesContainerSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "saapp"}, Metadata: map[string]string{"owner": "team_a"},
		},
	}
	s.Create(t, sa)
	s.Create(t, container)
	s.WaitReady(t, sa, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)
	s.WaitReady(t, container, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)

	s.Create(t, resourceGroup(ns, "sa-rg", nil, nil))
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, container, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id := storageAccountID("sa-rg", "saapp")
	path := "/storageAccounts/saapp"
	// The create is a GET and a PUT; a sync may read once more (under load), never write.
	if got := methods(s.ARMCalls(path)); !strings.HasPrefix(got+" ", "GET PUT ") || strings.Count(got, "PUT") != 1 {
		t.Fatalf("account create made %q, want \"GET PUT\" (then only GETs)", got)
	}
	cpath := "/storageAccounts/saapp/blobServices/default/containers/data"
	if got := methods(s.ARMCalls(cpath)); !createdOnce(got) {
		t.Fatalf("container create made %q at %s, want \"GET PUT\"", got, cpath)
	}
	if !strings.EqualFold(container.Status.ID, id+"/blobServices/default/containers/data") {
		t.Errorf("container status.id %q", container.Status.ID)
	}
	if md := s.AzureBody(t, container.Status.ID)["properties"].(map[string]any)["metadata"]; md.(map[string]any)["owner"] != "team_a" {
		t.Errorf("container metadata in Azure: %v", md)
	}
	if sa.Status.PrimaryEndpoints == nil || sa.Status.PrimaryEndpoints.Blob != "https://saapp.blob.core.windows.net/" || sa.Status.StatusOfPrimary != "available" {
		t.Errorf("status: %+v", sa.Status)
	}

	// Exports: keys from listKeys, endpoints from status, in objects the account owns.
	keys := s.platformAction(t, id, "listKeys", "2023-05-01", nil)
	data, sec := s.secretData(t, ns, "saapp-keys")
	if data["key1"] != storageKey(keys, "key1") || data["key2"] != storageKey(keys, "key2") || data["key1"] == "" {
		t.Errorf("Secret keys %q/%q are not Azure's", data["key1"], data["key2"])
	}
	if data["blob"] != "https://saapp.blob.core.windows.net/" {
		t.Errorf("Secret blob endpoint %q", data["blob"])
	}
	if !metav1.IsControlledBy(sec, sa) {
		t.Errorf("the Secret is not owned by the account: %+v", sec.OwnerReferences)
	}
	var cm corev1.ConfigMap
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "saapp-endpoints"}, &cm))
	if cm.Data["blob"] != "https://saapp.blob.core.windows.net/" || cm.Data["queue"] != "https://saapp.queue.core.windows.net/" || !metav1.IsControlledBy(&cm, sa) {
		t.Errorf("ConfigMap %v owners %v", cm.Data, cm.OwnerReferences)
	}

	// An unchanged resync writes nothing.
	s.Touch(t, sa, "1")
	if got := s.Settled(t, path, 3); strings.Count(got, "PUT") != 1 {
		t.Errorf("a resync made %q in all, want one more GET and no PUT", got)
	}

	// A spec change writes exactly once; from now on sync every second.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(sa), sa))
	sa.Spec.AllowBlobPublicAccess = ptr.To(true)
	sa.Annotations = map[string]string{reconcilers.AnnotationSyncPeriod: "1s"}
	must(t, s.Client.Update(ctx, sa))
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	until(t, "public access allowed in Azure", func() bool {
		return s.AzureBody(t, id)["properties"].(map[string]any)["allowBlobPublicAccess"] == true
	})
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 2 {
		t.Errorf("%d PUTs after one spec change, want 2 in all", n)
	}

	// TLS weakened in the portal: the next sync puts TLS 1.2 back, with one PUT.
	_, err := s.Emu.PatchResource(ctx, id, []byte(`{"properties":{"minimumTlsVersion":"TLS1_0"}}`))
	must(t, err)
	until(t, "TLS 1.2 restored", func() bool {
		return s.AzureBody(t, id)["properties"].(map[string]any)["minimumTlsVersion"] == "TLS1_2"
	})
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 3 {
		t.Errorf("%d PUTs after the drift, want exactly one more (3)", n)
	}

	// key1 rotated in Azure reaches the Secret once refresh-secrets asks for
	// it (a sync reads no keys); key2 stays.
	rotated := storageKey(s.platformAction(t, id, "regenerateKey", "2023-05-01", map[string]string{"keyName": "key1"}), "key1")
	s.annotate(t, sa, reconcilers.AnnotationRefreshSecrets, "rotated")
	until(t, "rotated key1 in the Secret", func() bool {
		d, _ := s.secretData(t, ns, "saapp-keys")
		return d["key1"] == rotated
	})
	if d, _ := s.secretData(t, ns, "saapp-keys"); d["key2"] != data["key2"] {
		t.Error("key2 changed in the Secret although only key1 was rotated")
	}

	// Deleting the account deletes it in Azure at once, and ARM its
	// container with it: the account does not wait for the container's
	// object, which then goes without a call of its own (this package runs
	// no garbage collector; e2e/lifecycle does).
	must(t, s.Client.Delete(ctx, sa))
	until(t, "account gone", func() bool { return s.Gone(sa) })
	for _, gone := range []string{id, container.Status.ID} {
		if _, err := s.Emu.Resource(gone); err == nil {
			t.Errorf("%s still exists in Azure", gone)
		}
	}
	calls := len(s.ARMCalls(cpath))
	must(t, s.Client.Delete(ctx, container))
	until(t, "container object gone", func() bool { return s.Gone(container) })
	if got := methods(s.ARMCalls(cpath)[calls:]); got != "" {
		t.Errorf("the container deleted with its account made %q", got)
	}
	if got := methods(s.ARMCalls(path)); strings.Count(got, "DELETE") != 1 {
		t.Errorf("account calls %q, want one DELETE", got)
	}
}
