// Package federation holds the conformance tests of the Azure emulator's Entra ID side
// (emulator/) against ServiceAccount tokens minted by a real Kubernetes API server
// (internal/testing/testenv): workload identity federation exchanges through the unchanged Azure SDK
// (azidentity's ClientAssertionCredential, armresources, armmsi), with the emulator
// discovering the API server's signing keys from its issuer URL as Entra ID does.
//
// It has no non-test code; run it with the control-plane binaries built:
//
//	AZTENANT_BIN_DIR=$PWD/bin go test -race ./e2e/federation/
package federation
