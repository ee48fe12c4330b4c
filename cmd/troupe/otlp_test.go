package main

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is a local OTLP/HTTP endpoint that keeps what it receives.
type otlpReceiver struct {
	mu      sync.Mutex
	traces  []*coltrace.ExportTraceServiceRequest
	metrics []*colmetric.ExportMetricsServiceRequest
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch r.URL.Path {
	case "/v1/traces":
		req := &coltrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(data, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.traces = append(rc.traces, req)
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	case "/v1/metrics":
		req := &colmetric.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(data, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.metrics = append(rc.metrics, req)
		out, _ := proto.Marshal(&colmetric.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	default:
		http.NotFound(w, r)
	}
}

func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

func TestRunExportsOverOTLPHTTP(t *testing.T) {
	dir := inTempDir(t)
	rc := &otlpReceiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "orders-bot")

	code, out, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", toolFlow),
		"--llm-script", flowFile(t, dir, "replies.yaml", toolReplies),
		"--tool-script", flowFile(t, dir, "tools.yaml", toolScript))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "It ships tomorrow.")

	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.NotEmpty(t, rc.traces, "spans arrived")
	parents := map[string]string{} // span id -> name
	var names []string
	type span struct{ name, parent string }
	var spans []span
	for _, req := range rc.traces {
		for _, rs := range req.ResourceSpans {
			assert.Equal(t, "orders-bot", stringAttr(rs.Resource.Attributes, "service.name"))
			for _, ss := range rs.ScopeSpans {
				assert.Equal(t, "github.com/troupe-dev/troupe/telemetry", ss.Scope.Name)
				for _, sp := range ss.Spans {
					parents[string(sp.SpanId)] = sp.Name
					spans = append(spans, span{sp.Name, string(sp.ParentSpanId)})
					names = append(names, sp.Name)
				}
			}
		}
	}
	assert.ElementsMatch(t, []string{"invoke_workflow Orders", "method answer", "method check", "method report",
		"invoke_agent Support", "chat", "chat", "execute_tool lookup_order"}, names)
	byName := map[string]string{}
	for _, s := range spans {
		byName[s.name] = parents[s.parent]
	}
	assert.Equal(t, "", byName["invoke_workflow Orders"])
	assert.Equal(t, "invoke_workflow Orders", byName["method answer"])
	assert.Equal(t, "method answer", byName["invoke_agent Support"])
	assert.Equal(t, "invoke_agent Support", byName["chat"])

	require.NotEmpty(t, rc.metrics, "metrics arrived")
	var metricNames []string
	for _, req := range rc.metrics {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metricNames = append(metricNames, m.Name)
				}
			}
		}
	}
	assert.Subset(t, metricNames, []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration",
		"troupe.flow.run.duration", "troupe.flow.method.duration", "troupe.flow.runs"})
}

func TestConsoleTracesGoToStderr(t *testing.T) {
	dir := inTempDir(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	code, out, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", "name: One\nmethods:\n  only: {start: true, do: {call: expression, expr: \"'hi'\"}}\n"))
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "hi\n", out, "stdout holds only the result")
	assert.Contains(t, errOut, `"Name":"invoke_workflow One"`)
	assert.Contains(t, errOut, `"Name":"method only"`)
}

func TestBadOTLPProtocolIsAnError(t *testing.T) {
	dir := inTempDir(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	code, _, errOut := runCLI(t, "run", flowFile(t, dir, "flow.yaml", "name: One\nmethods:\n  only: {start: true, do: {call: expression, expr: \"'hi'\"}}\n"))
	assert.Equal(t, 1, code)
	assert.True(t, strings.Contains(errOut, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json: want http/protobuf or grpc"), errOut)
}
