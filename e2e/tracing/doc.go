// Package tracing tests the operator's traces as a collector receives them:
// an OTLP/gRPC receiver runs in the test process, internal/operator.Tracing
// points the operator at it, and the operator (in process, against the
// package's API server and the Azure emulator) onboards a Tenant, creates a
// storage account whose create is a long-running operation, is refused a
// privileged role assignment by policy, and meets an Identity Entra ID
// rejects. The test then reads the span tree: parents and children by span
// ID, the outcome of each reconcile (reason, error status), the token
// exchange and its TokenRequest under what needed them, the onboarding steps
// with their ARM calls, the polls of the operation linked to the reconcile
// that started it; and it checks that no span carries a token, an assertion
// or a secret the emulator saw, nor anything shaped like a JWT.
package tracing
