package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/eventlog"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/telemetry"
	"github.com/troupe-dev/troupe/telemetry/otlpenv"
)

// telemetryFlags are the flags of run and resume that say what leaves the
// process besides the result: the event log. Traces and metrics follow the
// OTEL_* variables (see package otlpenv).
type telemetryFlags struct {
	events   string
	prices   string
	progress progressFlag
}

func addTelemetryFlags(cmd *cobra.Command, f *telemetryFlags) {
	cmd.Flags().StringVar(&f.events, "events", "", "write every event of the run to this file as JSON lines (read it with `troupe trace FILE`)")
	addProgressFlag(cmd, &f.progress)
	cmd.Flags().StringVar(&f.prices, "prices", "", "model prices for cost budgets: a YAML or JSON file mapping model names to {input, output, cached_input} in US dollars per million tokens")
}

// loadPrices reads a prices file: model names mapped to prices.
func loadPrices(path string) (llm.Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	var raw map[string]struct {
		Input       *float64 `yaml:"input"`
		Output      *float64 `yaml:"output"`
		CachedInput float64  `yaml:"cached_input"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("--prices %s: %w", path, err)
	}
	prices := llm.Prices{}
	for model, p := range raw {
		if p.Input == nil || p.Output == nil {
			return nil, fmt.Errorf("--prices %s: model %q needs both input and output (US dollars per million tokens)", path, model)
		}
		prices[model] = llm.Price{Input: *p.Input, Output: *p.Output, CachedInput: p.CachedInput}
	}
	return prices, nil
}

// reportBudget says, after a run stopped by a budget, what it had spent.
func reportBudget(w io.Writer, err error) {
	var be *flow.BudgetError
	if !errors.As(err, &be) {
		return
	}
	line := fmt.Sprintf("Stopped by the %s budget %s. Spent so far: %s", be.Scope, be.Budget, formatTokens(be.Usage))
	if be.Cost > 0 {
		line += fmt.Sprintf(", $%.4f", be.Cost)
	}
	fmt.Fprintln(w, line+".")
}

// observers are what a session sends events to besides the terminal.
type observers struct {
	stderr    io.Writer
	file      *os.File
	log       *eventlog.Writer
	providers *otlpenv.Providers
	prices    llm.Prices
}

// captureContentEnv turns on message content in spans, as the GenAI
// instrumentations of other OpenTelemetry SDKs name it.
const captureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// openTelemetry opens what f asks for and returns the engine options that
// feed it.
func openTelemetry(f telemetryFlags, stderr io.Writer) (*observers, []flow.Option, error) {
	t := &observers{stderr: stderr}
	var opts []flow.Option
	if f.prices != "" {
		prices, err := loadPrices(f.prices)
		if err != nil {
			return nil, nil, err
		}
		t.prices = prices
		opts = append(opts, flow.WithPrices(prices))
	}
	if f.events != "" {
		file, err := os.Create(f.events)
		if err != nil {
			return nil, nil, fmt.Errorf("--events: %w", err)
		}
		t.file, t.log = file, eventlog.NewWriter(file)
		opts = append(opts, flow.WithEvents(t.log.Observe))
	}
	providers, err := otlpenv.FromEnv(context.Background(), otlpenv.Config{Console: stderr})
	if err != nil {
		t.close()
		return nil, nil, err
	}
	if providers.Enabled() {
		t.providers = providers
		tel, err := telemetry.New(telemetry.Options{TracerProvider: providers.TracerProvider,
			MeterProvider: providers.MeterProvider, CaptureContent: strings.EqualFold(os.Getenv(captureContentEnv), "true")})
		if err != nil {
			t.close()
			return nil, nil, err
		}
		opts = append(opts, tel.Option())
	}
	return t, opts, nil
}

// flushTimeout bounds how long troupe waits for a telemetry backend when
// it exits.
const flushTimeout = 5 * time.Second

// close flushes and closes what openTelemetry opened, reporting failures
// on stderr.
func (t *observers) close() {
	if t == nil {
		return
	}
	if t.providers != nil {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		if err := t.providers.Shutdown(ctx); err != nil {
			fmt.Fprintf(t.stderr, "troupe: %v\n", err)
		}
		cancel()
	}
	if t.file == nil {
		return
	}
	err := t.log.Flush()
	if cerr := t.file.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(t.stderr, "troupe: the event log %s is incomplete: %v\n", t.file.Name(), err)
	}
}
