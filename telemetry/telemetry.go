// Package telemetry turns the events of flow runs into OpenTelemetry
// traces and metrics that follow the GenAI semantic conventions: an
// invoke_workflow span per run, an INTERNAL span per method, invoke_agent
// per agent or crew task, chat per model call and execute_tool per tool
// call, each under the span of its enclosing event, so parallel branches
// nest correctly; and the gen_ai.client.* metrics with Troupe's own run and
// method durations.
//
// It uses only the OpenTelemetry API: the host passes its TracerProvider
// and MeterProvider (package telemetry/otlpenv builds them from the OTEL_*
// variables). Hook it into an engine with [Telemetry.Option]:
//
//	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp})
//	eng := flow.NewEngine(tel.Option(), ...)
//
// Message content, tool arguments and tool results are not recorded unless
// Options.CaptureContent says so, and then pass through Options.Redact.
package telemetry

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/troupe-dev/troupe/flow"
)

// Semconv chooses which form of the GenAI conventions spans carry.
type Semconv int

const (
	// SemconvFromEnv reads OTEL_SEMCONV_STABILITY_OPT_IN: with
	// gen_ai_latest_experimental in it, SemconvLatest, else SemconvDefault.
	SemconvFromEnv Semconv = iota
	// SemconvDefault emits the current names and, for backends that still
	// read them, the deprecated gen_ai.system beside gen_ai.provider.name.
	SemconvDefault
	// SemconvLatest emits only the latest experimental names.
	SemconvLatest
)

// Options configure a Telemetry. Zero providers record nothing.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// CaptureContent records the run's inputs, method outputs, streamed
	// model text, tool arguments and tool results on spans. Off by
	// default: they may hold personal data.
	CaptureContent bool
	// Redact, when set, rewrites every captured value before it is
	// recorded (return "" to drop it). key is the attribute's name.
	Redact func(key, value string) string
	// Semconv picks the form of the conventions; see SemconvFromEnv.
	Semconv Semconv
}

// A Telemetry records runs as spans and metrics. It is safe for concurrent
// use by any number of runs.
type Telemetry struct {
	opts    Options
	tracer  trace.Tracer
	metrics *instruments
	latest  bool

	mu   sync.Mutex
	runs map[runKey]*runSpans
}

// runKey identifies a run among those a Telemetry sees.
type runKey struct{ run, flow string }

// scope names the instrumentation scope of Troupe's spans and metrics.
const scope = "github.com/troupe-dev/troupe/telemetry"

// New returns a Telemetry recording to the providers of opts.
func New(opts Options) (*Telemetry, error) {
	t := &Telemetry{opts: opts, runs: map[runKey]*runSpans{}}
	switch opts.Semconv {
	case SemconvLatest:
		t.latest = true
	case SemconvFromEnv:
		t.latest = latestFromEnv(os.Getenv("OTEL_SEMCONV_STABILITY_OPT_IN"))
	}
	if opts.TracerProvider != nil {
		t.tracer = opts.TracerProvider.Tracer(scope)
	}
	if opts.MeterProvider != nil {
		m, err := newInstruments(opts.MeterProvider.Meter(scope))
		if err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
		t.metrics = m
	}
	return t, nil
}

// latestFromEnv reads the comma-separated opt-in list.
func latestFromEnv(v string) bool {
	for _, s := range strings.Split(v, ",") {
		if strings.TrimSpace(s) == "gen_ai_latest_experimental" {
			return true
		}
	}
	return false
}

// Option returns the engine option that feeds t every event.
func (t *Telemetry) Option() flow.Option { return flow.WithEvents(t.Observe) }

// Observe records one event. Events of one run come one at a time, in
// order (as flow delivers them); runs may interleave.
func (t *Telemetry) Observe(ev flow.Event) {
	if t.tracer == nil && t.metrics == nil {
		return
	}
	key := runKey{ev.RunID, ev.Flow}
	t.mu.Lock()
	rs := t.runs[key]
	if rs == nil {
		if ev.Kind != flow.FlowStarted {
			t.mu.Unlock()
			return // a run that started before t saw it
		}
		rs = newRunSpans()
		t.runs[key] = rs
	}
	t.mu.Unlock()
	if t.record(rs, ev) {
		t.mu.Lock()
		delete(t.runs, key)
		t.mu.Unlock()
	}
}

// seconds is d in seconds, the unit of every duration metric.
func seconds(d time.Duration) float64 { return d.Seconds() }
