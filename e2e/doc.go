// Package e2e holds end-to-end tests that drive the product the way a user
// does: the binaries as processes (control plane, Azure emulator, operator),
// kubectl and the example manifests. Its sub-packages are the Azure emulator
// (emulator) and the emulator's conformance tests against real ServiceAccount
// tokens (federation).
package e2e
