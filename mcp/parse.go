package mcp

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/internal/diag"
)

// slugPattern is CrewAI's pattern for string references that are not URLs:
// an AMP slug, optionally with the legacy crewai-amp: prefix and a #tool
// (\w is Unicode in Python).
var slugPattern = regexp.MustCompile(`^(?:crewai-amp:)?[a-zA-Z0-9][a-zA-Z0-9_-]*(?:#[\p{L}\p{N}_-]+)?$`)

// Parse reads one mcps entry given as data (a string, or a map of JSON
// data as YAML and JSON decoders give it). source names the entry in
// messages, as CrewAI does ("mcps[0]"). It returns the server and every
// problem found; the server is only usable when no problem is an error.
func Parse(v any, source string) (Server, Problems) {
	p := &problems{source: source}
	var s Server
	switch x := v.(type) {
	case string:
		s = p.parseString(x)
	case map[string]any:
		s = p.parseMap(x)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = v
		}
		s = p.parseMap(m)
	default:
		p.errorf("", "mcp_type", "an MCP server is a string (an https:// URL or an AMP slug) or a mapping (with command or url), got %s", describe(v))
	}
	return s, p.list
}

// invalidReference is CrewAI's message for a string that is neither an
// https URL nor a slug.
const invalidReference = "Invalid MCP reference: '%s'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion')."

func (p *problems) parseString(ref string) Server {
	s := Server{Ref: ref}
	if strings.HasPrefix(ref, "https://") {
		s.Transport = TransportStreamableHTTP
		s.URL, s.Tool, _ = strings.Cut(ref, "#")
		if u, err := url.Parse(s.URL); err != nil || u.Host == "" {
			p.errorf("", "mcp_reference", "MCP server URL '%s' is not a valid URL with a host", s.URL)
		}
		return s
	}
	if !slugPattern.MatchString(ref) {
		p.errorf("", "mcp_reference", invalidReference, ref)
		return s
	}
	s.Transport = TransportAMP
	s.Slug, s.Tool, _ = strings.Cut(strings.TrimPrefix(ref, "crewai-amp:"), "#")
	return s
}

// keys lists the keys a server map takes, by transport ("" for all).
var keys = map[string]Transport{
	"tool_filter": "", "cache_tools_list": "", "prefix": "", "connect_timeout": "", "list_timeout": "",
	"call_timeout": "", "retry_calls": "", "required": "", "transport": "",
	"command": TransportStdio, "args": TransportStdio, "env": TransportStdio, "cwd": TransportStdio,
	"url": TransportStreamableHTTP, "headers": TransportStreamableHTTP, "streamable": TransportStreamableHTTP,
	"verify": TransportStreamableHTTP,
}

func (p *problems) parseMap(m map[string]any) Server {
	var s Server
	_, hasCommand := m["command"]
	_, hasURL := m["url"]
	switch t := m["transport"]; {
	case t != nil:
		s.Transport = p.transport(t)
	case hasCommand:
		s.Transport = TransportStdio
	case hasURL:
		s.Transport = TransportStreamableHTTP
	}
	switch s.Transport {
	case TransportStdio:
		s.Command = p.str("command", m["command"], true)
		s.Args = p.strList("args", m["args"])
		s.Env = p.strMap("env", m["env"])
		s.Dir = p.str("cwd", m["cwd"], false)
		if hasURL {
			p.warnf("url", "mcp_ignored", "url is ignored: a server with a command runs over stdio")
		}
	case TransportStreamableHTTP, TransportSSE:
		s.URL = p.str("url", m["url"], true)
		if s.URL != "" {
			if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.errorf("url", "mcp_url", "url must be an http:// or https:// URL with a host, got '%s'", s.URL)
			}
		}
		s.Headers = p.strMap("headers", m["headers"])
		s.Streamable = p.optBool("streamable", m["streamable"])
		if v, ok := m["verify"]; ok && v != nil {
			if path, isStr := v.(string); isStr {
				s.CAFile = path
			} else {
				s.Verify = p.optBool("verify", v)
			}
		}
	case "":
		if m["transport"] == nil {
			p.errorf("", "missing", "Field required [type=missing]: an MCP server mapping needs command (a stdio server) or url (an HTTP server)")
		}
		return s
	}
	p.common(&s, m)
	for _, k := range sortedKeys(m) {
		t, known := keys[k]
		switch {
		case !known:
			hint := ""
			if c := closestKey(k); c != "" {
				hint = fmt.Sprintf(" Did you mean %q?", c)
			}
			p.warnf(k, "unknown_key", "unknown key %q is ignored: it is not a key of an MCP server (CrewAI ignores it too).%s", k, hint)
		case t == "" || t == s.Transport || (t == TransportStreamableHTTP && s.Transport == TransportSSE && k != "streamable"):
		case k == "url" && s.Transport == TransportStdio:
			// warned about above
		default:
			p.warnf(k, "mcp_ignored", "%s does not apply to a %s server and is ignored", k, s.Transport)
		}
	}
	return s
}

// common reads the keys every transport takes.
func (p *problems) common(s *Server, m map[string]any) {
	s.Filter = p.filter(m["tool_filter"])
	s.CacheToolsList = p.optBool("cache_tools_list", m["cache_tools_list"])
	if v, ok := m["prefix"]; ok && v != nil {
		prefix := p.str("prefix", v, false)
		s.Prefix = &prefix
	}
	s.ConnectTimeout = p.seconds("connect_timeout", m["connect_timeout"])
	s.ListTimeout = p.seconds("list_timeout", m["list_timeout"])
	s.CallTimeout = p.seconds("call_timeout", m["call_timeout"])
	if b := p.optBool("retry_calls", m["retry_calls"]); b != nil {
		s.RetryCalls = *b
	}
	if b := p.optBool("required", m["required"]); b != nil {
		s.Required = *b
	}
}

func (p *problems) transport(v any) Transport {
	switch t, _ := v.(string); Transport(t) {
	case TransportStdio, TransportStreamableHTTP, TransportSSE:
		return Transport(t)
	case "http":
		return TransportStreamableHTTP
	}
	p.errorf("transport", "mcp_transport", "transport must be stdio, streamable-http (or http) or sse, got %s", describe(v))
	return ""
}

// filter reads a tool_filter: a static filter, or a Python reference, which
// Troupe cannot run.
func (p *problems) filter(v any) *Filter {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.errorf("tool_filter", "mcp_tool_filter", "tool_filter must be a mapping {type: static, allowed_tool_names: [...], blocked_tool_names: [...]}, got %s", describe(v))
		return nil
	}
	if _, py := m["python"]; py {
		p.errorf("tool_filter", "mcp_tool_filter", "tool_filter: a Python filter cannot run in Troupe; use {type: static, allowed_tool_names: [...], blocked_tool_names: [...]}")
		return nil
	}
	if t, _ := m["type"].(string); t != "static" {
		p.errorf("tool_filter", "mcp_tool_filter", "tool_filter must have type: static (with allowed_tool_names and blocked_tool_names), got type %s", describe(m["type"]))
		return nil
	}
	f := &Filter{}
	for _, k := range []string{"allowed_tool_names", "blocked_tool_names"} {
		raw, ok := m[k]
		if !ok || raw == nil {
			continue
		}
		names, ok := stringList(raw)
		if !ok {
			p.errorf(join("tool_filter", k), "list_type", "%s.tool_filter.%s must be a list of strings", p.source, k)
			continue
		}
		if k == "allowed_tool_names" {
			f.Allowed = names
		} else {
			f.Blocked = names
		}
	}
	for _, k := range sortedKeys(m) {
		if k != "type" && k != "allowed_tool_names" && k != "blocked_tool_names" {
			p.warnf(join("tool_filter", k), "unknown_key", "unknown key %q of a static tool_filter is ignored", k)
		}
	}
	return f
}

func (p *problems) str(key string, v any, required bool) string {
	if v == nil {
		if required {
			p.errorf(key, "missing", "Field required [type=missing]: %s", key)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.errorf(key, "string_type", "Input should be a valid string [type=string_type]: %s must be a string, got %s", key, describe(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		p.errorf(key, "string_empty", "%s must not be empty", key)
	}
	return s
}

func (p *problems) strList(key string, v any) []string {
	if v == nil {
		return nil
	}
	l, ok := stringList(v)
	if !ok {
		p.errorf(key, "list_type", "Input should be a valid list [type=list_type]: %s must be a list of strings, got %s", key, describe(v))
	}
	return l
}

func (p *problems) strMap(key string, v any) map[string]string {
	switch m := v.(type) {
	case nil:
		return nil
	case map[string]string:
		return m
	case map[string]any:
		out := make(map[string]string, len(m))
		for _, k := range sortedKeys(m) {
			s, ok := m[k].(string)
			if !ok {
				p.errorf(join(key, k), "string_type", "Input should be a valid string [type=string_type]: %s.%s must be a string, got %s (quote it)", key, k, describe(m[k]))
				continue
			}
			out[k] = s
		}
		return out
	}
	p.errorf(key, "dict_type", "Input should be a valid dictionary [type=dict_type]: %s must be a mapping of names to strings, got %s", key, describe(v))
	return nil
}

func (p *problems) optBool(key string, v any) *bool {
	if v == nil {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		p.errorf(key, "bool_type", "Input should be a valid boolean [type=bool_type]: %s must be true or false, got %s", key, describe(v))
		return nil
	}
	return &b
}

// seconds reads a Troupe timeout key: a positive number of seconds.
func (p *problems) seconds(key string, v any) time.Duration {
	var f float64
	switch x := v.(type) {
	case nil:
		return 0
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		p.errorf(key, "mcp_timeout", "%s must be a number of seconds, got %s", key, describe(v))
		return 0
	}
	if !(f > 0) || math.IsInf(f, 0) || f > float64(math.MaxInt64/int64(time.Second)) {
		p.errorf(key, "mcp_timeout", "%s must be a positive number of seconds, got %v", key, v)
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// stringList converts a list of strings given as data.
func stringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return l, true
	case []any:
		out := make([]string, 0, len(l))
		for _, it := range l {
			s, ok := it.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// describe names the type of a data value in messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string '%s'", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case int, int64:
		return fmt.Sprintf("the integer %v", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case []any, []string:
		return "a list"
	case map[string]any, map[string]string:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// closestKey suggests the known key nearest to k, or "".
func closestKey(k string) string {
	best, bestD := "", 3
	for known := range keys {
		if d := diag.EditDistance(k, known); d < bestD || (d == bestD && known < best) {
			best, bestD = known, d
		}
	}
	return best
}
