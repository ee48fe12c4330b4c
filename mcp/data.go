package mcp

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Data returns the server as an mcps entry (data that [Parse] reads back
// into the same server): its Ref when it has one, else a map.
func (s Server) Data() any {
	if s.Ref != "" {
		return s.Ref
	}
	m := map[string]any{}
	k := s.Kind()
	if s.Transport != "" && s.Transport != inferred(s) {
		m["transport"] = string(s.Transport)
	}
	switch k {
	case TransportStdio:
		m["command"] = s.Command
		if s.Args != nil {
			m["args"] = anyList(s.Args)
		}
		if s.Env != nil {
			m["env"] = anyMap(s.Env)
		}
		if s.Dir != "" {
			m["cwd"] = s.Dir
		}
	case TransportStreamableHTTP, TransportSSE:
		m["url"] = s.URL
		if s.Headers != nil {
			m["headers"] = anyMap(s.Headers)
		}
		if s.Streamable != nil {
			m["streamable"] = *s.Streamable
		}
		if s.CAFile != "" {
			m["verify"] = s.CAFile
		} else if s.Verify != nil {
			m["verify"] = *s.Verify
		}
	}
	if f := s.Filter; f != nil {
		tf := map[string]any{"type": "static"}
		if f.Allowed != nil {
			tf["allowed_tool_names"] = anyList(f.Allowed)
		}
		if f.Blocked != nil {
			tf["blocked_tool_names"] = anyList(f.Blocked)
		}
		m["tool_filter"] = tf
	}
	if s.CacheToolsList != nil {
		m["cache_tools_list"] = *s.CacheToolsList
	}
	if s.Prefix != nil {
		m["prefix"] = *s.Prefix
	}
	for key, d := range map[string]time.Duration{"connect_timeout": s.ConnectTimeout, "list_timeout": s.ListTimeout, "call_timeout": s.CallTimeout} {
		if d > 0 {
			m[key] = d.Seconds()
		}
	}
	if s.RetryCalls {
		m["retry_calls"] = true
	}
	if s.Required {
		m["required"] = true
	}
	return m
}

// inferred is the transport Parse infers for a map without transport.
func inferred(s Server) Transport {
	if s.Command != "" {
		return TransportStdio
	}
	return TransportStreamableHTTP
}

func anyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Validate reports what keeps a server a Go host built from being used:
// no command or URL, a URL that is not http(s), a Ref that does not parse,
// a #tool of a map, negative timeouts. source names the entry in messages.
func (s Server) Validate(source string) Problems {
	p := &problems{source: source}
	if s.Ref != "" {
		parsed, ps := Parse(s.Ref, source)
		p.list = append(p.list, ps...)
		if len(ps) == 0 && (parsed.URL != s.URL || parsed.Slug != s.Slug || parsed.Tool != s.Tool || parsed.Kind() != s.Kind()) {
			p.errorf("", "mcp_reference", "Ref '%s' does not match the server's transport, URL, slug or tool: build servers from strings with mcp.Parse", s.Ref)
		}
		return p.list
	}
	switch s.Kind() {
	case TransportStdio:
		if strings.TrimSpace(s.Command) == "" {
			p.errorf("command", "missing", "Field required [type=missing]: command")
		}
	case TransportStreamableHTTP, TransportSSE:
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.errorf("url", "mcp_url", "url must be an http:// or https:// URL with a host, got '%s'", s.URL)
		}
	case TransportAMP:
		if !slugPattern.MatchString(s.Slug) {
			p.errorf("", "mcp_reference", invalidReference, s.Slug)
		}
	case "":
		p.errorf("", "missing", "Field required [type=missing]: an MCP server needs a command (a stdio server) or a url (an HTTP server)")
	default:
		p.errorf("transport", "mcp_transport", "transport must be stdio, streamable-http or sse, got '%s'", s.Transport)
	}
	for key, d := range map[string]time.Duration{"connect_timeout": s.ConnectTimeout, "list_timeout": s.ListTimeout, "call_timeout": s.CallTimeout} {
		if d < 0 {
			p.errorf(key, "mcp_timeout", "%s must be a positive number of seconds, got %v", key, d.Seconds())
		}
	}
	return p.list
}

// String describes the server for messages: its Ref, or its transport and
// command or URL.
func (s Server) String() string {
	if s.Ref != "" {
		return s.Ref
	}
	if s.Kind() == TransportStdio {
		return fmt.Sprintf("stdio server %q", s.Name())
	}
	return fmt.Sprintf("%s server %s", s.Kind(), s.URL)
}
