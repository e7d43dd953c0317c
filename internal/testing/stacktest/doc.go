// Package stacktest is the operator running against the emulator for tests:
// a fresh Azure emulator per test (one tenant, one subscription, a platform
// principal with Owner for out-of-band setups), one namespace per team with
// its own app registration federated with the namespace's reserved
// provisioner ServiceAccount (created as the operator's user, which admission
// requires for its workload-identity annotations), an Identity "default" and a Tenant bounding it to resource groups
// named "<namespace>-*" in westeurope, and the operator's controllers started
// in-process against the package's real API server (internal/testing/testenv).
//
// It owns that fixture and the small helpers tests need around it (waiting
// for a condition, reading ARM calls from the emulator's audit log, reading a
// resource from the emulator's state); tests of the kinds and the attack
// suite share it, so there is one copy of the wiring. It is part of the test
// harness (internal/testing), which nothing shipped imports.
package stacktest
