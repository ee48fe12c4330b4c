package agent

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/diag"
)

// The keys of each mapping of the format.
var (
	agentKeys        = []string{"name", "description", "system_prompt", "model", "tools", "max_steps", "timeout", "tool_timeout", "error_policy", "repeat_detection", "max_result_chars", "state_machine", "handoffs"}
	modelKeys        = []string{"model_name", "api_type", "temperature", "max_tokens"}
	toolKeys         = []string{"name", "approval", "timeout", "max_calls", "parameters"}
	errorPolicyKeys  = []string{"max_retries", "on_error", "fallback_message"}
	stateMachineKeys = []string{"initial", "states", "events"}
	stateKeys        = []string{"tools", "on", "final"}
)

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// reporter collects diagnostics.
type reporter struct {
	diags Diagnostics
	pos   map[string]place
}

func (r *reporter) add(sev diag.Severity, at place, path, code, format string, args ...any) {
	r.diags = append(r.diags, Diagnostic{
		File: at.file, Line: at.line, Column: at.column, Path: path,
		Severity: sev, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

func (r *reporter) errorf(at place, path, code, format string, args ...any) {
	r.add(diag.SeverityError, at, path, code, format, args...)
}

func (r *reporter) warnf(at place, path, code, format string, args ...any) {
	r.add(diag.SeverityWarning, at, path, code, format, args...)
}

// at returns the place of path, or of its nearest ancestor that has one.
func (r *reporter) at(path string) place {
	for path != "" {
		if p, ok := r.pos[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return place{}
}

// decoder turns the merged agent mapping into a Definition.
type decoder struct {
	*reporter
}

// mapping calls f for each key of v in order, reporting a v that is not a
// mapping and keys outside known (with the nearest known key).
func (d *decoder) mapping(v *value, path string, known []string, f func(key, path string, val *value)) bool {
	if v.kind != yaml.MappingNode {
		d.errorf(v.at, path, "not_mapping", "want a mapping, got %s", v.describe())
		return false
	}
	for i, k := range v.keys {
		p := join(path, k.text)
		if !slices.Contains(known, k.text) {
			msg := fmt.Sprintf("unknown key %q", k.text)
			if s := diag.Closest(k.text, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.errorf(k.at, p, "unknown_key", "%s", msg)
			continue
		}
		d.pos[p] = k.at
		f(k.text, p, v.vals[i])
	}
	return true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func (d *decoder) str(v *value, path string) string {
	if v.kind != yaml.ScalarNode || v.tag != "!!str" {
		d.errorf(v.at, path, "string_type", "want a string, got %s", v.describe())
		return ""
	}
	return v.text
}

func (d *decoder) integer(v *value, path string) int {
	if v.kind == yaml.ScalarNode && v.tag == "!!int" {
		n, err := strconv.ParseInt(v.text, 0, 32)
		if err == nil {
			return int(n)
		}
		d.errorf(v.at, path, "int_range", "%s is out of range", v.text)
		return 0
	}
	d.errorf(v.at, path, "int_type", "want an integer, got %s", v.describe())
	return 0
}

func (d *decoder) number(v *value, path string) *float64 {
	if v.kind == yaml.ScalarNode && (v.tag == "!!int" || v.tag == "!!float") {
		f, err := strconv.ParseFloat(v.text, 64)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return &f
		}
	}
	d.errorf(v.at, path, "float_type", "want a number, got %s", v.describe())
	return nil
}

func (d *decoder) boolean(v *value, path string) bool {
	if v.kind == yaml.ScalarNode && v.tag == "!!bool" {
		return v.text == "true" || v.text == "True" || v.text == "TRUE"
	}
	d.errorf(v.at, path, "bool_type", "want true or false, got %s", v.describe())
	return false
}

// duration reads a Go duration such as 10s or 1m30s; it must be positive.
func (d *decoder) duration(v *value, path string) time.Duration {
	s := d.str(v, path)
	if s == "" {
		return 0
	}
	t, err := time.ParseDuration(s)
	if err != nil || t <= 0 {
		d.errorf(v.at, path, "duration", "%q is not a positive duration (write it like 10s, 2m or 1m30s)", s)
		return 0
	}
	return t
}

func (d *decoder) strings(v *value, path string) []string {
	if v.kind != yaml.SequenceNode {
		d.errorf(v.at, path, "list_type", "want a list, got %s", v.describe())
		return nil
	}
	out := make([]string, 0, len(v.items))
	for i, it := range v.items {
		p := index(path, i)
		d.pos[p] = it.at
		out = append(out, d.str(it, p))
	}
	return out
}

func (d *decoder) oneOf(v *value, path string, allowed ...string) string {
	s := d.str(v, path)
	if s != "" && !slices.Contains(allowed, s) {
		msg := fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", "))
		if c := diag.Closest(s, allowed); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		d.errorf(v.at, path, "literal_error", "%s", msg)
		return ""
	}
	return s
}

// agent decodes the agent mapping at path "agent".
func (d *decoder) agent(v *value, def *Definition) {
	const path = "agent"
	d.pos[path] = v.at
	def.RepeatDetection = true
	seen := map[string]bool{}
	ok := d.mapping(v, path, agentKeys, func(key, p string, val *value) {
		seen[key] = true
		switch key {
		case "name":
			def.Name = d.str(val, p)
			if def.Name != "" && !nameRE.MatchString(def.Name) {
				d.errorf(val.at, p, "name_pattern", "%q is not a valid agent name: use lower-case letters, digits and _, starting with a letter", def.Name)
			}
		case "description":
			def.Description = d.str(val, p)
		case "system_prompt":
			def.SystemPrompt = d.str(val, p)
		case "model":
			d.model(val, p, &def.Model)
		case "tools":
			d.tools(val, p, def)
		case "max_steps":
			def.MaxSteps = d.integer(val, p)
			if val.tag == "!!int" && def.MaxSteps < 1 {
				d.errorf(val.at, p, "greater_than_equal", "max_steps must be at least 1, got %d", def.MaxSteps)
			}
		case "timeout":
			def.Timeout = d.duration(val, p)
		case "tool_timeout":
			def.ToolTimeout = d.duration(val, p)
		case "error_policy":
			d.errorPolicy(val, p, &def.ErrorPolicy)
		case "repeat_detection":
			def.RepeatDetection = d.boolean(val, p)
		case "max_result_chars":
			def.MaxResultChars = d.integer(val, p)
			if val.tag == "!!int" && def.MaxResultChars < 100 {
				d.errorf(val.at, p, "greater_than_equal", "max_result_chars must be at least 100, got %d", def.MaxResultChars)
			}
		case "state_machine":
			def.StateMachine = d.stateMachine(val, p)
		case "handoffs":
			def.Handoffs = d.strings(val, p)
		}
	})
	if !ok {
		return
	}
	for _, req := range []string{"name", "system_prompt", "model", "max_steps"} {
		if !seen[req] {
			d.errorf(v.at, path, "missing", "missing required key %q", req)
		}
	}
}

func (d *decoder) model(v *value, path string, m *Model) {
	seen := false
	ok := d.mapping(v, path, modelKeys, func(key, p string, val *value) {
		switch key {
		case "model_name":
			seen = true
			m.ModelName = d.str(val, p)
		case "api_type":
			m.APIType = d.oneOf(val, p, "chat_completions", "responses", "messages")
		case "temperature":
			m.Temperature = d.number(val, p)
			if t := m.Temperature; t != nil && (*t < 0 || *t > 2) {
				d.errorf(val.at, p, "range", "temperature must be between 0 and 2, got %g", *t)
			}
		case "max_tokens":
			m.MaxTokens = d.integer(val, p)
			if val.tag == "!!int" && m.MaxTokens < 1 {
				d.errorf(val.at, p, "greater_than_equal", "max_tokens must be at least 1, got %d", m.MaxTokens)
			}
		}
	})
	if ok && !seen {
		d.errorf(v.at, path, "missing", "missing required key \"model_name\"")
	}
}

func (d *decoder) tools(v *value, path string, def *Definition) {
	if v.kind != yaml.SequenceNode {
		d.errorf(v.at, path, "list_type", "want a list of tool names, got %s", v.describe())
		return
	}
	seen := map[string]bool{}
	for i, it := range v.items {
		p := index(path, i)
		d.pos[p] = it.at
		var t ToolRef
		if it.kind == yaml.MappingNode {
			named := false
			d.mapping(it, p, toolKeys, func(key, kp string, val *value) {
				switch key {
				case "name":
					named = true
					t.Name = d.str(val, kp)
				case "approval":
					t.Approval = d.oneOf(val, kp, ApprovalRequired, ApprovalNone)
				case "timeout":
					t.Timeout = d.duration(val, kp)
				case "parameters":
					t.Parameters = d.strings(val, kp)
					if t.Parameters == nil {
						t.Parameters = []string{}
					}
				case "max_calls":
					t.MaxCalls = d.integer(val, kp)
					if val.tag == "!!int" && t.MaxCalls < 1 {
						d.errorf(val.at, kp, "greater_than_equal", "max_calls must be at least 1, got %d", t.MaxCalls)
					}
				}
			})
			if !named {
				d.errorf(it.at, p, "missing", "missing required key \"name\"")
			}
		} else {
			t.Name = d.str(it, p)
		}
		if t.Name == "" {
			continue
		}
		if seen[t.Name] {
			d.errorf(it.at, p, "duplicate_tool", "tool %q is listed twice", t.Name)
			continue
		}
		seen[t.Name] = true
		def.Tools = append(def.Tools, t)
		d.pos[toolPath(len(def.Tools)-1)] = it.at
	}
}

// toolPath is the path of the i-th decoded tool, where its name is
// reported. Decoded tools are renumbered when entries were dropped, so
// positions are recorded under this key as well.
func toolPath(i int) string { return "#tool[" + strconv.Itoa(i) + "]" }

func (d *decoder) errorPolicy(v *value, path string, e *ErrorPolicy) {
	d.mapping(v, path, errorPolicyKeys, func(key, p string, val *value) {
		switch key {
		case "max_retries":
			e.MaxRetries = d.integer(val, p)
			if val.tag == "!!int" && e.MaxRetries < 0 {
				d.errorf(val.at, p, "greater_than_equal", "max_retries must be at least 0, got %d", e.MaxRetries)
			}
		case "on_error":
			e.OnError = OnError(d.oneOf(val, p, string(OnErrorFail), string(OnErrorFallback), string(OnErrorNotifyHuman)))
		case "fallback_message":
			e.FallbackMessage = d.str(val, p)
		}
	})
	if e.OnError == OnErrorFallback && e.FallbackMessage == "" {
		d.errorf(v.at, join(path, "on_error"), "missing", "on_error: fallback needs a fallback_message")
	}
}
