// Package testenv gives each integration test package one real control plane
// (internal/lab/controlplane) with the project's CRDs installed (those of TestKinds, the
// kinds tests create by hand, unless WithKinds names others or EveryKind), started in TestMain
// and stopped when the package's tests end, fail or are interrupted. Its etcd starts
// as a copy of a seed built once per content (internal/lab/seed), not empty.
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//	func TestX(t *testing.T) { env := testenv.Get(t); ... env.Client ... }
//
// Eventually is how tests, here and on the emulator stacks, wait for a condition.
//
// It is part of the test harness (internal/testing, beside stacktest and
// reconcilertest), which nothing shipped imports.
package testenv
