package flow

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity says whether a diagnostic stops a definition from loading.
type Severity int

// Severities, most serious first.
const (
	SeverityError Severity = iota
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// MarshalText renders the severity as in String.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "error" or "warning".
func (s *Severity) UnmarshalText(text []byte) error {
	switch string(text) {
	case "error":
		*s = SeverityError
	case "warning":
		*s = SeverityWarning
	default:
		return fmt.Errorf("flow: unknown severity %q: want error or warning", text)
	}
	return nil
}

// A Diagnostic is one problem found in a definition, with its place.
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
	// Code is a stable rule identifier: pydantic's error type where CrewAI
	// raises one (missing, extra_forbidden, dict_type, literal_error,
	// union_tag_invalid, greater_than_equal, ...), the CEL rule (cel_empty,
	// cel_invalid, cel_unknown_root, template_unterminated, template_empty,
	// and Troupe's cel_unknown_function, cel_type, cel_always_fails),
	// CrewAI's issue code (emit_without_router, human_feedback_llm_required,
	// ...) or Troupe's own (syntax, not_mapping, too_large, int_range,
	// unknown_event, unreachable, router_without_trigger, unknown_output,
	// output_not_ready, unknown_key, duplicate_key, ...).
	Code    string `json:"code"`
	Message string `json:"message"`
}

// String formats the diagnostic as FILE:LINE:COL: SEVERITY: PATH: MESSAGE,
// leaving out the parts that are unknown (LINE:COL: ... without a file).
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		if d.File != "" {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%d:%d", d.Line, d.Column)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// Diagnostics is every problem found in a definition. As an error it stands
// for a definition that did not load: at least one diagnostic is an error.
type Diagnostics []Diagnostic

// Error lists the diagnostics, one per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, 0, len(ds))
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	if len(lines) == 1 {
		return "flow: " + lines[0]
	}
	return fmt.Sprintf("flow: %d problems:\n%s", len(lines), strings.Join(lines, "\n"))
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics { return ds.filter(SeverityError) }

// Warnings returns the warning diagnostics.
func (ds Diagnostics) Warnings() Diagnostics { return ds.filter(SeverityWarning) }

func (ds Diagnostics) filter(s Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// Pos is a line and column in a definition's source, both 1-based.
type Pos struct{ Line, Column int }

// positions maps diagnostic paths to where they stand in the source.
type positions map[string]Pos

// at returns the position of path, or of its nearest ancestor that has one.
func (p positions) at(path string) Pos {
	for path != "" {
		if pos, ok := p[path]; ok {
			return pos
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p[""]
}

// sort orders diagnostics by line and column, keeping the order of those at
// the same place; diagnostics without a line come first.
func (ds Diagnostics) sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
}

// reporter collects diagnostics for one source.
type reporter struct {
	file  string
	pos   positions
	diags Diagnostics
	// src is the source text when there is one, to place problems inside
	// strings; lines holds the byte offset of each line start, built on
	// first use.
	src   []byte
	lines []int
}

func (r *reporter) add(sev Severity, path, code, msg string) {
	p := r.pos.at(path)
	r.diags = append(r.diags, Diagnostic{
		File: r.file, Line: p.Line, Column: p.Column,
		Path: path, Severity: sev, Code: code, Message: msg,
	})
}

func (r *reporter) errorf(path, code, format string, args ...any) {
	r.add(SeverityError, path, code, fmt.Sprintf(format, args...))
}

func (r *reporter) warnf(path, code, format string, args ...any) {
	r.add(SeverityWarning, path, code, fmt.Sprintf(format, args...))
}
