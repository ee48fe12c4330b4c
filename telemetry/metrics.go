package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/troupe-dev/troupe/flow"
)

// instruments are the metrics a Telemetry records.
type instruments struct {
	tokens     metric.Int64Histogram
	duration   metric.Float64Histogram
	firstChunk metric.Float64Histogram
	runTime    metric.Float64Histogram
	methodTime metric.Float64Histogram
	runs       metric.Int64Counter
}

// The bucket boundaries the GenAI conventions advise.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

func newInstruments(m metric.Meter) (*instruments, error) {
	var in instruments
	var errs [6]error
	in.tokens, errs[0] = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used"), metric.WithExplicitBucketBoundaries(tokenBuckets...))
	in.duration, errs[1] = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.firstChunk, errs[2] = m.Float64Histogram("gen_ai.client.operation.time_to_first_chunk", metric.WithUnit("s"),
		metric.WithDescription("Time to receive the first chunk of a streamed response"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.runTime, errs[3] = m.Float64Histogram("troupe.flow.run.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of flow runs"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.methodTime, errs[4] = m.Float64Histogram("troupe.flow.method.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of flow method executions"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.runs, errs[5] = m.Int64Counter("troupe.flow.runs", metric.WithUnit("{run}"),
		metric.WithDescription("Flow runs by final status"))
	return &in, errors.Join(errs[:]...)
}

// chat records a model call's token usage, duration and time to first
// chunk.
func (in *instruments) chat(st *step, ev flow.Event, responseModel string, ttfc time.Duration) {
	if in == nil {
		return
	}
	ctx := context.Background()
	attrs := []attribute.KeyValue{opName("chat"), attribute.String("gen_ai.provider.name", st.provider),
		attribute.String("gen_ai.request.model", st.model)}
	if responseModel != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", responseModel))
	}
	if ev.Err != nil {
		in.duration.Record(ctx, seconds(ev.Duration), metric.WithAttributes(append(attrs, attribute.String("error.type", errorType(ev.Err)))...))
		return
	}
	in.duration.Record(ctx, seconds(ev.Duration), metric.WithAttributes(attrs...))
	if ttfc > 0 {
		in.firstChunk.Record(ctx, seconds(ttfc), metric.WithAttributes(attrs...))
	}
	in.tokens.Record(ctx, ev.Usage.InputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "input"))...))
	in.tokens.Record(ctx, ev.Usage.OutputTokens, metric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "output"))...))
}

// method records a method execution's duration.
func (in *instruments) method(ev flow.Event, status string) {
	if in == nil {
		return
	}
	in.methodTime.Record(context.Background(), seconds(ev.Duration), metric.WithAttributes(
		attribute.String("gen_ai.workflow.name", ev.Flow), attribute.String("troupe.method.name", ev.Method),
		attribute.String("troupe.method.status", status)))
}

// run records a run's duration and counts it by status.
func (in *instruments) run(ev flow.Event, status string) {
	if in == nil {
		return
	}
	attrs := metric.WithAttributes(attribute.String("gen_ai.workflow.name", ev.Flow), attribute.String("troupe.run.status", status))
	in.runTime.Record(context.Background(), seconds(ev.Duration), attrs)
	in.runs.Add(context.Background(), 1, attrs)
}
