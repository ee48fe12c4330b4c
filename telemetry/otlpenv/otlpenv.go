// Package otlpenv builds OpenTelemetry trace and meter providers from the
// standard OTEL_* environment variables, for hosts (the troupe CLI) that
// configure telemetry the way every OpenTelemetry SDK does:
//
//   - OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER: otlp, console (JSON
//     on the host's stderr) or none. Unset, a signal is exported over OTLP
//     when an endpoint is set for it (OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT), else not at
//     all: nothing is exported, and nothing slows a run down, by default.
//   - OTEL_EXPORTER_OTLP_PROTOCOL (or the per-signal _TRACES_PROTOCOL,
//     _METRICS_PROTOCOL): http/protobuf (the default) or grpc.
//   - OTEL_SDK_DISABLED=true turns everything off.
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service
//     (troupe by default); the exporters read the other OTEL_EXPORTER_OTLP_*
//     variables (headers, timeout, compression, certificates) themselves.
//
// Only hosts import it: it brings the OpenTelemetry SDK and exporters,
// which the library's packages stay free of.
package otlpenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config says where FromEnv reads and writes.
type Config struct {
	// Getenv reads a variable; nil means os.Getenv. (The OTLP exporters
	// read their own variables from the process environment.)
	Getenv func(string) string
	// Console is where the console exporters write; nil means os.Stderr.
	Console io.Writer
	// ServiceName is the service.name when OTEL_SERVICE_NAME does not set
	// one; empty means "troupe".
	ServiceName string
}

// Providers are what FromEnv built. A nil provider means the signal is not
// exported.
type Providers struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	shutdown       []func(context.Context) error
}

// Enabled reports whether any signal is exported.
func (p *Providers) Enabled() bool {
	return p != nil && (p.TracerProvider != nil || p.MeterProvider != nil)
}

// Shutdown flushes what is buffered and stops the exporters.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, f := range p.shutdown {
		if err := f(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("otlpenv: flushing telemetry: %w", err)
	}
	return nil
}

// FromEnv builds the providers the environment asks for. With none of the
// variables set it returns providers with nothing enabled.
func FromEnv(ctx context.Context, cfg Config) (*Providers, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Console == nil {
		cfg.Console = os.Stderr
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "troupe"
	}
	if strings.EqualFold(strings.TrimSpace(cfg.Getenv("OTEL_SDK_DISABLED")), "true") {
		return &Providers{}, nil
	}
	traces, err := exporterFor(cfg.Getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := exporterFor(cfg.Getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	p := &Providers{}
	if traces == "" && metrics == "" {
		return p, nil
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", cfg.ServiceName)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("otlpenv: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	if traces != "" {
		exp, err := traceExporter(ctx, traces, cfg.Console)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		p.TracerProvider, p.shutdown = tp, append(p.shutdown, tp.Shutdown)
	}
	if metrics != "" {
		exp, err := metricExporter(ctx, metrics, cfg.Console)
		if err != nil {
			_ = p.Shutdown(ctx)
			return nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		p.MeterProvider, p.shutdown = mp, append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}

// exporterFor returns how signal (TRACES or METRICS) is exported:
// "http/protobuf", "grpc", "console", or "" for not at all.
func exporterFor(getenv func(string) string, signal string) (string, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	kind := strings.TrimSpace(strings.ToLower(getenv(name)))
	switch kind {
	case "none":
		return "", nil
	case "console":
		return "console", nil
	case "":
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
			return "", nil
		}
	case "otlp":
	default:
		return "", fmt.Errorf("otlpenv: %s=%s: want otlp, console or none", name, kind)
	}
	proto := getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto = strings.TrimSpace(proto); proto {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("otlpenv: OTEL_EXPORTER_OTLP_PROTOCOL=%s: want http/protobuf or grpc", proto)
}

func traceExporter(ctx context.Context, kind string, console io.Writer) (sdktrace.SpanExporter, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch kind {
	case "console":
		exp, err = stdouttrace.New(stdouttrace.WithWriter(console))
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("otlpenv: the %s trace exporter: %w", kind, err)
	}
	return exp, nil
}

func metricExporter(ctx context.Context, kind string, console io.Writer) (sdkmetric.Exporter, error) {
	var exp sdkmetric.Exporter
	var err error
	switch kind {
	case "console":
		exp, err = stdoutmetric.New(stdoutmetric.WithWriter(console))
	case "grpc":
		exp, err = otlpmetricgrpc.New(ctx)
	default:
		exp, err = otlpmetrichttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("otlpenv: the %s metric exporter: %w", kind, err)
	}
	return exp, nil
}
