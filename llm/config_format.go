package llm

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
)

const redacted = "[redacted]"

// Map returns the definition as a CrewAI LLM mapping in canonical JSON data
// form, the inverse of [ConfigFromMap]. The API key is left out, so the map can
// be written to a flow file, logged or persisted without leaking it.
func (c Config) Map() map[string]any {
	m := make(map[string]any, 10+len(c.Extra))
	for k, v := range c.Extra {
		m[k] = cloneValue(v)
	}
	m["model"] = c.Model
	if c.Provider != "" {
		m["provider"] = c.Provider
	}
	if c.BaseURL != "" {
		m["base_url"] = c.BaseURL
	}
	if c.Temperature != nil {
		m["temperature"] = *c.Temperature
	}
	if c.TopP != nil {
		m["top_p"] = *c.TopP
	}
	if c.MaxTokens != 0 {
		m["max_tokens"] = int64(c.MaxTokens)
	}
	if c.Seed != nil {
		m["seed"] = *c.Seed
	}
	if c.Timeout != 0 {
		if c.Timeout%time.Second == 0 {
			m["timeout"] = int64(c.Timeout / time.Second)
		} else {
			m["timeout"] = c.Timeout.Seconds()
		}
	}
	if c.Stop != nil {
		stop := make([]any, len(c.Stop))
		for i, s := range c.Stop {
			stop[i] = s
		}
		m["stop"] = stop
	}
	return m
}

// String describes the configuration with the API key (and Extra values
// whose key names a secret) redacted.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("llm.Config{")
	for i, a := range c.attrs() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(a.Value.String())
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String, so that %#v does not print the API key either.
func (c Config) GoString() string { return c.String() }

// LogValue implements slog.LogValuer with the API key redacted.
func (c Config) LogValue() slog.Value { return slog.GroupValue(c.attrs()...) }

// attrs lists the set fields, secrets redacted, Extra keys sorted.
func (c Config) attrs() []slog.Attr {
	attrs := []slog.Attr{slog.String("model", c.Model)}
	add := func(k, v string) { attrs = append(attrs, slog.String(k, v)) }
	if c.Provider != "" {
		add("provider", c.Provider)
	}
	if c.BaseURL != "" {
		add("base_url", c.BaseURL)
	}
	if c.APIKey != "" {
		add("api_key", redacted)
	}
	if c.Temperature != nil {
		add("temperature", strconv.FormatFloat(*c.Temperature, 'g', -1, 64))
	}
	if c.TopP != nil {
		add("top_p", strconv.FormatFloat(*c.TopP, 'g', -1, 64))
	}
	if c.MaxTokens != 0 {
		add("max_tokens", strconv.Itoa(c.MaxTokens))
	}
	if c.Seed != nil {
		add("seed", strconv.FormatInt(*c.Seed, 10))
	}
	if c.Timeout != 0 {
		add("timeout", c.Timeout.String())
	}
	if c.Stop != nil {
		add("stop", fmt.Sprintf("%q", c.Stop))
	}
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if isSecretKey(k) {
			add(k, redacted)
		} else {
			add(k, fmt.Sprint(c.Extra[k]))
		}
	}
	return attrs
}

// isSecretKey reports whether a definition key probably holds a credential.
func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	if strings.HasSuffix(k, "tokens") {
		return false
	}
	for _, w := range [...]string{"key", "secret", "password", "token", "credential", "authorization", "headers"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
