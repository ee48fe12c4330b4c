package telemetry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/telemetry"
)

// collect runs def once with metrics to a manual reader and returns the
// metrics recorded, by name.
func collect(t *testing.T, def string, opts ...flow.Option) map[string]metricdata.Metrics {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := telemetry.New(telemetry.Options{MeterProvider: mp})
	require.NoError(t, err)
	d, err := flow.Parse([]byte(def), "flow.yaml")
	require.NoError(t, err)
	_, _ = flow.NewEngine(append(opts, tel.Option())...).Run(context.Background(), d, nil)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, "github.com/troupe-dev/troupe/telemetry", sm.Scope.Name)
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func attr(set attribute.Set, key string) string {
	v, _ := set.Value(attribute.Key(key))
	return v.Emit()
}

func TestMetricsOfAnAgentRun(t *testing.T) {
	model := fake.New(fake.Reply{Text: "Hi.", Usage: &llm.Usage{InputTokens: 10, OutputTokens: 3}})
	ms := collect(t, `
schema: crewai.flow/v1
name: Hello
config: {stream: true}
methods:
  greet:
    start: true
    do: {call: agent, with: {role: Greeter, goal: Greet, backstory: Kind., input: "hello", llm: openai/gpt-4o}}
`, flow.WithLLM(model))

	tokens := ms["gen_ai.client.token.usage"]
	assert.Equal(t, "{token}", tokens.Unit)
	hist := tokens.Data.(metricdata.Histogram[int64])
	byType := map[string]int64{}
	for _, dp := range hist.DataPoints {
		byType[attr(dp.Attributes, "gen_ai.token.type")] = dp.Sum
		assert.Equal(t, "chat", attr(dp.Attributes, "gen_ai.operation.name"))
		assert.Equal(t, "openai", attr(dp.Attributes, "gen_ai.provider.name"))
		assert.Equal(t, "gpt-4o", attr(dp.Attributes, "gen_ai.request.model"))
	}
	assert.Equal(t, map[string]int64{"input": 10, "output": 3}, byType)

	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.operation.time_to_first_chunk",
		"troupe.flow.run.duration", "troupe.flow.method.duration"} {
		m, ok := ms[name]
		require.True(t, ok, "metric %s recorded", name)
		assert.Equal(t, "s", m.Unit, name)
		dps := m.Data.(metricdata.Histogram[float64]).DataPoints
		require.Len(t, dps, 1, name)
		assert.Equal(t, uint64(1), dps[0].Count, name)
	}
	method := ms["troupe.flow.method.duration"].Data.(metricdata.Histogram[float64]).DataPoints[0]
	assert.Equal(t, "greet", attr(method.Attributes, "troupe.method.name"))
	assert.Equal(t, "completed", attr(method.Attributes, "troupe.method.status"))

	runs := ms["troupe.flow.runs"].Data.(metricdata.Sum[int64])
	require.Len(t, runs.DataPoints, 1)
	assert.Equal(t, int64(1), runs.DataPoints[0].Value)
	assert.Equal(t, "completed", attr(runs.DataPoints[0].Attributes, "troupe.run.status"))
	assert.Equal(t, "Hello", attr(runs.DataPoints[0].Attributes, "gen_ai.workflow.name"))
}

func TestFailedRunsAreCountedAsFailed(t *testing.T) {
	model := fake.New(fake.Reply{Error: "bad request", Status: 400})
	ms := collect(t, `
schema: crewai.flow/v1
name: Broken
methods:
  greet:
    start: true
    do: {call: agent, with: {role: Greeter, goal: Greet, backstory: Kind., input: "hello", llm: openai/gpt-4o}}
`, flow.WithLLM(model))
	runs := ms["troupe.flow.runs"].Data.(metricdata.Sum[int64])
	require.Len(t, runs.DataPoints, 1)
	assert.Equal(t, "failed", attr(runs.DataPoints[0].Attributes, "troupe.run.status"))
	dur := ms["gen_ai.client.operation.duration"].Data.(metricdata.Histogram[float64]).DataPoints
	require.Len(t, dur, 1)
	assert.Equal(t, "*llm.APIError", attr(dur[0].Attributes, "error.type"))
	_, tokens := ms["gen_ai.client.token.usage"]
	assert.False(t, tokens, "a failed call reports no tokens")
}
