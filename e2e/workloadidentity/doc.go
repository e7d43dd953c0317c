// Package workloadidentity tests how an app gets its own Azure identity the
// standard way, next to the namespace's provisioning identity: the real
// azure-workload-identity mutating webhook (bin/azure-wi-webhook, v1.5.1, run
// out of cluster as the API server's webhook) injects AZURE_CLIENT_ID,
// AZURE_TENANT_ID, AZURE_AUTHORITY_HOST, AZURE_FEDERATED_TOKEN_FILE and the
// projected token volume into a pod of an ordinary ServiceAccount; its token
// (minted as the kubelet would) is exchanged by the unchanged Azure SDK with
// the emulator's Entra ID for the app's principal only, which holds only a
// data-plane role; and no pod may run as the reserved provisioner account.
//
// It has no non-test code; run it with the tools built (`make tools`):
//
//	AZTENANT_BIN_DIR=$PWD/bin go test -race ./e2e/workloadidentity/
package workloadidentity
