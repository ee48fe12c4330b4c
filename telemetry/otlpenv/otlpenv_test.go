package otlpenv_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/telemetry/otlpenv"
)

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name            string
		env             map[string]string
		traces, metrics bool
		err             string
	}{
		{name: "nothing set exports nothing", env: nil},
		{name: "an endpoint exports both", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, traces: true, metrics: true},
		{name: "a traces endpoint exports traces", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, traces: true},
		{name: "none turns a signal off", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_METRICS_EXPORTER": "none"}, traces: true},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, traces: true},
		{name: "grpc", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, traces: true},
		{name: "the SDK disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: "OTEL_TRACES_EXPORTER=zipkin: want otlp, console or none"},
		{name: "unknown protocol", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL=http/json: want http/protobuf or grpc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := otlpenv.FromEnv(context.Background(), otlpenv.Config{
				Getenv: func(k string) string { return tt.env[k] }, Console: &bytes.Buffer{}})
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			// Nothing listens: the exporters may fail to flush.
			defer func() { _ = p.Shutdown(context.Background()) }()
			assert.Equal(t, tt.traces, p.TracerProvider != nil, "traces")
			assert.Equal(t, tt.metrics, p.MeterProvider != nil, "metrics")
			assert.Equal(t, tt.traces || tt.metrics, p.Enabled())
		})
	}
}
