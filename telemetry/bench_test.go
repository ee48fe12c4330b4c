package telemetry_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/telemetry"
)

// chain10 is W1's shape: ten expression methods in a row.
func chain10(b *testing.B) *flow.Definition {
	var sb strings.Builder
	sb.WriteString("name: Chain\nmethods:\n  m0: {start: true, do: {call: expression, expr: \"1\"}}\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&sb, "  m%d: {listen: m%d, do: {call: expression, expr: \"%d\"}}\n", i, i-1, i)
	}
	def, err := flow.Parse([]byte(sb.String()), "chain.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return def
}

// BenchmarkTelemetryOverhead runs a chain of ten methods with no
// telemetry, with an event observer that does nothing, and with spans
// (and metrics) going to the SDK with a batching exporter that drops them:
// the difference divided by ten is the cost per method.
func BenchmarkTelemetryOverhead(b *testing.B) {
	def := chain10(b)
	tracing := func(metrics bool) []flow.Option {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		opts := telemetry.Options{TracerProvider: tp}
		if metrics {
			opts.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		}
		tel, err := telemetry.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		return []flow.Option{tel.Option()}
	}
	cases := []struct {
		name string
		opts func() []flow.Option
	}{
		{"none", func() []flow.Option { return nil }},
		{"events", func() []flow.Option { return []flow.Option{flow.WithEvents(func(flow.Event) {})} }},
		{"traces", func() []flow.Option { return tracing(false) }},
		{"traces+metrics", func() []flow.Option { return tracing(true) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p, err := flow.NewEngine(c.opts()...).Compile(def)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Run(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
