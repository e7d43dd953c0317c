package operator

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Tracing exports spans over OTLP/gRPC to endpoint (host:port) and makes its
// provider the global one; without it the global tracer is a no-op and
// tracing costs nothing. Shutdown flushes what is left and stops it;
// ForceFlush exports the spans ended so far.
//
// What a trace shows:
//   - "Reconcile <Kind>": one per reconcile of an Azure-backed object, with
//     its outcome (aztenant.reason, its class, the ARM ID and client ID;
//     status Error with the message when it failed or stalled), its
//     decisions as events (create, update with the differing paths, adopt,
//     delete, detach), and children "Resolve identity", "Entra token
//     exchange" (when the credential needs a token: client and tenant ID,
//     the principal, or the refusal's reason and Entra's description) with
//     its "Kubernetes TokenRequest", and "ARM <method>" per attempt. A
//     reconcile polling a long-running operation links to the one that
//     started it (in memory: after a restart the polls are not linked).
//   - "Reconcile Identity": the Identity controller's check, with its
//     exchange.
//   - "Reconcile Tenant onboarding": one per onboarding reconcile, its
//     outcome (the Onboarded reason), children "Onboarding <step>" per step
//     with their ARM calls, and "Offboarding <kind>" per removal.
//
// No span carries an assertion, a token, a secret or a key: IDs, paths,
// reasons and messages only.
//
// Call it once per process: the packages' tracers delegate to the first
// provider made global.
func Tracing(ctx context.Context, endpoint string, insecure bool) (*sdktrace.TracerProvider, error) {
	opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(endpoint)}
	if insecure {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	exp, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "aztenant-operator"))),
	)
	otel.SetTracerProvider(tp)
	return tp, nil
}
