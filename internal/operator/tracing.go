package operator

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Tracing exports spans (one per reconcile, with children for the credential
// and each ARM attempt) over OTLP/gRPC to endpoint (host:port). Without it the
// global tracer is a no-op and tracing costs nothing.
func Tracing(ctx context.Context, endpoint string, insecure bool) (shutdown func(context.Context) error, err error) {
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
	return tp.Shutdown, nil
}
