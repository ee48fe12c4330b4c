package anthropic

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/internal/httpcall"
)

// KeyVariable is the environment variable holding the API key.
const KeyVariable = "ANTHROPIC_API_KEY"

// A MissingKeyError reports that no API key was configured. Its text does
// not repeat the model, which the caller (the provider registry) names.
type MissingKeyError struct {
	Model string
}

// Error implements error.
func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("anthropic: no API key; set %s (in the environment or ./.env) or api_key in the LLM definition",
		KeyVariable)
}

// Model is an [llm.LLM] served by the Messages API. It is safe for
// concurrent use.
type Model struct {
	cfg     llm.Config
	model   string
	call    httpcall.Call
	retry   httpcall.Policy
	timeout httpcall.Timeouts
	service sdk.MessageService
}

var (
	_ llm.LLM                = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
)

// New returns a model for cfg. The key is cfg.APIKey, else
// ANTHROPIC_API_KEY from the environment given with [WithEnv]; the endpoint
// is cfg.BaseURL, else ANTHROPIC_BASE_URL, else [DefaultBaseURL]. A missing
// key is a [*MissingKeyError] unless the endpoint is on this machine. Calls
// are bounded by the model's timeouts (see [WithTimeouts]).
func New(cfg llm.Config, opts ...Option) (*Model, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	_, model := cfg.ProviderModel()
	if model == "" {
		return nil, &llm.ConfigError{Model: cfg.Model, Key: "model", Msg: "no model name"}
	}
	baseURL := strings.TrimSpace(cfg.BaseURL)
	if baseURL == "" {
		baseURL, _ = httpcall.Lookup(o.env, []string{"ANTHROPIC_BASE_URL"})
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key, _ = httpcall.Lookup(o.env, []string{KeyVariable})
	}
	if key == "" && !httpcall.IsLocal(baseURL) {
		return nil, &MissingKeyError{Model: model}
	}
	client := o.httpClient
	if client == nil {
		client = &http.Client{}
	}
	ropts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(client),
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(0),
	}
	if key != "" {
		ropts = append(ropts, option.WithAPIKey(key))
	}
	retry, err := o.retry.ForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := sdk.NewClient(ropts...)
	return &Model{
		cfg:     cfg,
		model:   model,
		call:    httpcall.Call{Provider: llm.ProviderAnthropic, Model: model, Key: key, RequestIDHeader: "Request-Id"},
		retry:   retry,
		timeout: o.timeouts.ForConfig(cfg),
		service: c.Messages,
	}, nil
}

// Factory returns an [llm.Factory] building models with [New] and opts.
func Factory(opts ...Option) llm.Factory {
	return func(_ context.Context, cfg llm.Config) (llm.LLM, error) {
		m, err := New(cfg, opts...)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// Capabilities implements [llm.CapabilityReporter].
func (m *Model) Capabilities() llm.Capabilities {
	return llm.Capabilities{ToolCalls: true, ParallelToolCalls: true, StructuredOutput: true, Streaming: true}
}

// String describes the model without its key.
func (m *Model) String() string { return "anthropic/" + m.model }

// Generate implements [llm.LLM].
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	params, extra, err := m.params(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := m.call.Bound(ctx, m.timeout.Call)
	defer cancel()
	var resp *llm.Response
	err = m.retry.Do(ctx, func(ctx context.Context) error {
		var capture httpcall.Capture
		out, err := m.service.New(ctx, params, append(extra, option.WithMiddleware(capture.Middleware))...)
		if err != nil {
			return m.error(ctx, &capture, err)
		}
		resp = response(out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Stream implements [llm.LLM]. A failure before the first chunk is retried
// like Generate; once a chunk was yielded, errors end the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		params, extra, err := m.params(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		ctx, watch := m.call.Watch(ctx, m.timeout)
		defer watch.Stop()
		m.retry.Stream(ctx, watch.Yield(yield), func(ctx context.Context, emit func(llm.Chunk) bool) error {
			var capture httpcall.Capture
			s := m.service.NewStreaming(ctx, params, append(extra, option.WithMiddleware(capture.Middleware))...)
			defer s.Close()
			var acc accumulator
			for s.Next() {
				watch.Beat()
				for _, c := range acc.add(s.Current()) {
					if !emit(c) {
						return nil
					}
				}
			}
			if err := s.Err(); err != nil {
				return m.error(ctx, &capture, err)
			}
			if ctx.Err() != nil {
				return m.call.Error(ctx, nil, ctx.Err())
			}
			emit(llm.Chunk{Done: acc.response()})
			return nil
		})
	}
}

// error maps a failed call's error; an error event inside a stream carries
// the provider's JSON.
func (m *Model) error(ctx context.Context, capture *httpcall.Capture, err error) error {
	var ae *sdk.Error
	if errors.As(err, &ae) && ctx.Err() == nil {
		if status, _, _ := capture.Failure(); status == 0 && ae.RawJSON() != "" {
			e := m.call.StreamError([]byte(ae.RawJSON()))
			if e.Code == "overloaded_error" {
				e.Status = 529 // what the API answers outside a stream
			}
			return e
		}
	}
	return m.call.Error(ctx, capture, err)
}
