package llm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Config is how a model is configured: a CrewAI LLM definition (the `llm:` of
// an agent, a crew or a human-feedback step) read by [ConfigFromMap], or built
// in Go.
type Config struct {
	// Model is the CrewAI model string, e.g. "openai/gpt-4o" or "gpt-4o-mini".
	Model string
	// Provider, when set, overrides the provider inferred from Model
	// (CrewAI's provider=).
	Provider string
	// BaseURL points the provider's client at another endpoint (an
	// OpenAI-compatible server, a proxy, a local Ollama).
	BaseURL string
	// APIKey overrides the key the provider reads from its environment. It is
	// never printed: String, GoString and LogValue redact it.
	APIKey      string
	Temperature *float64
	TopP        *float64
	// MaxTokens caps the reply's length; 0 means the provider's default.
	MaxTokens int
	Seed      *int64
	// Timeout bounds one call, retries included: a non-streamed call must
	// complete within it, a stream must send its first event within it and
	// may then fall silent for at most the smaller of Timeout and the stream
	// idle timeout. 0 means the provider's default (for llm/openai and
	// llm/anthropic [DefaultTimeout], unless changed by their
	// WithTimeouts option). A call that runs out of time fails with a
	// [*TimeoutError].
	Timeout time.Duration
	// Stop lists stop sequences sent with every call.
	Stop []string
	// Extra holds every other key of the definition (api_version,
	// reasoning_effort, max_retries, ...), for the provider to interpret;
	// the settings a provider reads itself go through [Config.ExtraInt]
	// and [Config.ExtraString], so a mistyped one fails the model's build.
	Extra map[string]any
}

// ProviderModel returns the provider to resolve and the model name to send:
// Provider (normalized) when set, with a matching "provider/" prefix removed
// from Model, else what [ParseModel] makes of Model.
func (c Config) ProviderModel() (provider, model string) {
	if c.Provider == "" {
		return ParseModel(c.Model)
	}
	provider = NormalizeProvider(c.Provider)
	model = strings.TrimSpace(c.Model)
	if p, rest, ok := strings.Cut(model, "/"); ok && NormalizeProvider(p) == provider {
		model = strings.TrimSpace(rest)
	}
	return provider, model
}

// A ConfigError reports a bad key in an LLM definition.
type ConfigError struct {
	// Model is the model string of the definition, when known; the error
	// then reads `llm: model "openai/gpt-4o": key: msg` instead of
	// `llm: config: key: msg`.
	Model string
	// Key is the definition's key at fault ("" when the whole value is).
	Key string
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *ConfigError) Error() string {
	prefix := "llm: config: "
	if e.Model != "" {
		prefix = "llm: model " + strconv.Quote(e.Model) + ": "
	}
	if e.Key == "" {
		return prefix + e.Msg
	}
	return prefix + e.Key + ": " + e.Msg
}

// ConfigFromValue reads an LLM definition given either as a model string
// ("openai/gpt-4o") or as a map (see [ConfigFromMap]).
func ConfigFromValue(v any) (Config, error) {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return Config{}, &ConfigError{Key: "model", Msg: "empty model string"}
		}
		return Config{Model: strings.TrimSpace(v)}, nil
	case map[string]any:
		return ConfigFromMap(v)
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return ConfigFromMap(m)
	case Config:
		return v, nil
	case *Config:
		if v != nil {
			return *v, nil
		}
	}
	return Config{}, &ConfigError{Msg: fmt.Sprintf("want a model string or a mapping with a model key, got %s", describe(v))}
}

// ConfigFromMap reads a CrewAI LLM definition. It accepts model (required),
// provider, base_url (or api_base), api_key, temperature, top_p, max_tokens
// (or max_completion_tokens), seed, timeout (seconds), stop (or
// stop_sequences; a string or a list of strings); a null value leaves a key
// unset. Every other key goes to Extra, in canonical JSON data form. Numbers
// given as numeric strings are accepted, as pydantic does.
func ConfigFromMap(m map[string]any) (Config, error) {
	var c Config
	model, err := stringKey(m, "model")
	if err != nil {
		return c, err
	}
	if strings.TrimSpace(model) == "" {
		if _, present := m["model"]; !present || m["model"] == nil {
			return c, &ConfigError{Key: "model", Msg: "Field required"}
		}
		return c, &ConfigError{Key: "model", Msg: "must not be empty"}
	}
	c.Model = strings.TrimSpace(model)
	if c.Provider, err = stringKey(m, "provider"); err != nil {
		return c, err
	}
	if c.BaseURL, err = aliasedString(m, "base_url", "api_base"); err != nil {
		return c, err
	}
	if c.APIKey, err = stringKey(m, "api_key"); err != nil {
		return c, err
	}
	if c.Temperature, err = floatKey(m, "temperature"); err != nil {
		return c, err
	}
	if c.TopP, err = floatKey(m, "top_p"); err != nil {
		return c, err
	}
	if c.MaxTokens, err = maxTokens(m); err != nil {
		return c, err
	}
	if c.Seed, err = intKey(m, "seed"); err != nil {
		return c, err
	}
	if c.Timeout, err = timeoutKey(m, "timeout"); err != nil {
		return c, err
	}
	if c.Stop, err = stopKey(m); err != nil {
		return c, err
	}
	for k, v := range m {
		if isConfigKey(k) || v == nil {
			continue
		}
		if c.Extra == nil {
			c.Extra = make(map[string]any)
		}
		c.Extra[k] = canonical(v)
	}
	return c, nil
}

// isConfigKey reports whether k is read into a field of Config.
func isConfigKey(k string) bool {
	switch k {
	case "model", "provider", "base_url", "api_base", "api_key", "temperature", "top_p",
		"max_tokens", "max_completion_tokens", "seed", "timeout", "stop", "stop_sequences":
		return true
	}
	return false
}

func stringKey(m map[string]any, k string) (string, error) {
	v, ok := m[k]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &ConfigError{Key: k, Msg: "must be a string, got " + describe(v)}
	}
	return s, nil
}

// aliasedString reads a string given under either of two keys, which must
// agree when both are present.
func aliasedString(m map[string]any, k, alias string) (string, error) {
	a, err := stringKey(m, k)
	if err != nil {
		return "", err
	}
	b, err := stringKey(m, alias)
	if err != nil {
		return "", err
	}
	if a != "" && b != "" && a != b {
		return "", &ConfigError{Key: alias, Msg: fmt.Sprintf("%q conflicts with %s %q; give one of them", b, k, a)}
	}
	if a == "" {
		a = b
	}
	return a, nil
}

func floatKey(m map[string]any, k string) (*float64, error) {
	v, ok := m[k]
	if !ok || v == nil {
		return nil, nil
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, &ConfigError{Key: k, Msg: "must be a number, got " + describe(v)}
	}
	return &f, nil
}

func intKey(m map[string]any, k string) (*int64, error) {
	v, ok := m[k]
	if !ok || v == nil {
		return nil, nil
	}
	n, ok := toInt(v)
	if !ok {
		return nil, &ConfigError{Key: k, Msg: "must be an integer, got " + describe(v)}
	}
	return &n, nil
}

func maxTokens(m map[string]any) (int, error) {
	key := "max_tokens"
	n, err := intKey(m, key)
	if err != nil {
		return 0, err
	}
	if n == nil {
		key = "max_completion_tokens"
		if n, err = intKey(m, key); err != nil || n == nil {
			return 0, err
		}
	}
	if *n < 0 || *n > math.MaxInt32 {
		return 0, &ConfigError{Key: key, Msg: fmt.Sprintf("must be between 0 and %d, got %d", math.MaxInt32, *n)}
	}
	return int(*n), nil
}

func timeoutKey(m map[string]any, k string) (time.Duration, error) {
	v, ok := m[k]
	if !ok || v == nil {
		return 0, nil
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) {
		return 0, &ConfigError{Key: k, Msg: "must be a number of seconds, got " + describe(v)}
	}
	if f < 0 || f > float64(math.MaxInt64/int64(time.Second)) {
		return 0, &ConfigError{Key: k, Msg: fmt.Sprintf("must be a non-negative number of seconds, got %v", f)}
	}
	return time.Duration(f * float64(time.Second)), nil
}

func stopKey(m map[string]any) ([]string, error) {
	key := "stop"
	v, ok := m[key]
	if !ok || v == nil {
		key = "stop_sequences"
		if v, ok = m[key]; !ok || v == nil {
			return nil, nil
		}
	}
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []string:
		return append([]string(nil), v...), nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, &ConfigError{Key: fmt.Sprintf("%s[%d]", key, i), Msg: "must be a string, got " + describe(e)}
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, &ConfigError{Key: key, Msg: "must be a string or a list of strings, got " + describe(v)}
}

// describe names a value's JSON type and shows it, for error messages.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case string:
		return fmt.Sprintf("string %q", v)
	case map[string]any, map[string]string:
		return "a mapping"
	case []any, []string:
		return "a list"
	}
	if _, ok := toFloat(v); ok {
		return fmt.Sprintf("number %v", v)
	}
	return fmt.Sprintf("%T", v)
}
