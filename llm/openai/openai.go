package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/internal/httpcall"
)

// A MissingKeyError reports that no API key was configured. Its text does
// not repeat the model, which the caller (the provider registry) names.
type MissingKeyError struct {
	Provider string
	Model    string
	// Variable is the environment variable that would hold the key.
	Variable string
}

// Error implements error.
func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("openai: no API key for provider %s; set %s (in the environment or ./.env) or api_key in the LLM definition",
		e.Provider, e.Variable)
}

// Model is an [llm.LLM] served by the Chat Completions API. It is safe for
// concurrent use.
type Model struct {
	cfg     llm.Config
	model   string // the model name sent
	call    httpcall.Call
	retry   httpcall.Policy
	timeout httpcall.Timeouts
	service sdk.ChatCompletionService
}

var (
	_ llm.LLM                = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
)

// New returns a model for cfg. The key is cfg.APIKey, else the first set
// key variable of the environment given with [WithEnv] (OPENAI_API_KEY); the
// endpoint is cfg.BaseURL, else OPENAI_BASE_URL, else the default base URL
// (https://api.openai.com/v1). A missing key is a [*MissingKeyError] unless
// [WithoutKey] was given or the endpoint is on this machine. Calls are
// bounded by the model's timeouts (see [WithTimeouts]).
func New(cfg llm.Config, opts ...Option) (*Model, error) {
	o := defaults()
	for _, opt := range opts {
		opt(&o)
	}
	provider, model := cfg.ProviderModel()
	if o.provider != "" {
		provider = o.provider
	}
	if provider == "" {
		provider = llm.ProviderOpenAI
	}
	if model == "" {
		return nil, &llm.ConfigError{Model: cfg.Model, Key: "model", Msg: "no model name"}
	}
	baseURL := strings.TrimSpace(cfg.BaseURL)
	if baseURL == "" {
		baseURL, _ = httpcall.Lookup(o.env, o.baseURLVars)
	}
	if baseURL == "" {
		baseURL = o.baseURL
	}
	if baseURL == "" {
		msg := fmt.Sprintf("provider %s has no default endpoint; set base_url in the LLM definition", provider)
		if len(o.baseURLVars) > 0 {
			msg += " or " + o.baseURLVars[0]
		}
		return nil, &llm.ConfigError{Model: cfg.Model, Key: "base_url", Msg: msg}
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key, _ = httpcall.Lookup(o.env, o.keyVars)
	}
	if key == "" && !o.keyOptional && !httpcall.IsLocal(baseURL) {
		v := "OPENAI_API_KEY"
		if len(o.keyVars) > 0 {
			v = o.keyVars[0]
		}
		return nil, &MissingKeyError{Provider: provider, Model: model, Variable: v}
	}
	client := o.httpClient
	if client == nil {
		client = &http.Client{}
	}
	ropts := []option.RequestOption{
		option.WithHTTPClient(client),
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(0),
	}
	if key != "" {
		ropts = append(ropts, option.WithAPIKey(key))
	}
	for _, h := range [...]struct {
		key string
		opt func(string) option.RequestOption
	}{{"organization", option.WithOrganization}, {"project", option.WithProject}} {
		v, _, err := cfg.ExtraString(h.key)
		if err != nil {
			return nil, err
		}
		if v != "" {
			ropts = append(ropts, h.opt(v))
		}
	}
	retry, err := o.retry.ForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Model{
		cfg:     cfg,
		model:   model,
		call:    httpcall.Call{Provider: provider, Model: model, Key: key, RequestIDHeader: "X-Request-Id", VersionedBaseURL: baseURL},
		retry:   retry,
		timeout: o.timeouts.ForConfig(cfg),
		service: sdk.NewChatCompletionService(ropts...),
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
func (m *Model) String() string { return m.call.Provider + "/" + m.model }

// Generate implements [llm.LLM].
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := m.call.Bound(ctx, m.timeout.Call)
	defer cancel()
	var resp *llm.Response
	err = m.retry.Do(ctx, func(ctx context.Context) error {
		var capture httpcall.Capture
		out, err := m.service.New(ctx, params, option.WithMiddleware(capture.Middleware))
		if err != nil {
			return m.call.Error(ctx, &capture, err)
		}
		resp, err = m.response(out, req.Stop)
		return err
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
		params, err := m.params(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		params.StreamOptions.IncludeUsage = sdk.Bool(true)
		ctx, watch := m.call.Watch(ctx, m.timeout)
		defer watch.Stop()
		m.retry.Stream(ctx, watch.Yield(yield), func(ctx context.Context, emit func(llm.Chunk) bool) error {
			var capture httpcall.Capture
			s := m.service.NewStreaming(ctx, params, option.WithMiddleware(capture.Middleware))
			defer s.Close()
			acc := newAccumulator(req.Stop)
			for s.Next() {
				watch.Beat()
				for _, c := range acc.add(s.Current()) {
					if !emit(c) {
						return nil
					}
				}
			}
			if err := s.Err(); err != nil {
				return m.streamError(ctx, &capture, err)
			}
			if ctx.Err() != nil {
				return m.call.Error(ctx, nil, ctx.Err())
			}
			for _, c := range acc.end() {
				if !emit(c) {
					return nil
				}
			}
			return nil
		})
	}
}

// streamError maps a failed stream's error.
func (m *Model) streamError(ctx context.Context, capture *httpcall.Capture, err error) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) && ctx.Err() == nil {
		return m.call.StreamError(se.Event.Data)
	}
	return m.call.Error(ctx, capture, err)
}
