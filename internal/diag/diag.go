// Package diag holds the diagnostic types that definition formats share
// (flow definitions, agent files): a problem with its file, line, column,
// path, severity and rule code, and "did you mean" suggestions.
package diag

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

// Pos is a line and column in a definition's source, both 1-based.
type Pos struct{ Line, Column int }

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

// Error lists ds one per line after prefix ("flow", "agent"), as the Error
// method of a package's Diagnostics type does.
func Error(prefix string, ds []Diagnostic) string {
	lines := make([]string, 0, len(ds))
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	if len(lines) == 1 {
		return prefix + ": " + lines[0]
	}
	return fmt.Sprintf("%s: %d problems:\n%s", prefix, len(lines), strings.Join(lines, "\n"))
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// Filter returns the diagnostics of severity s, nil when there are none.
func Filter[S ~[]Diagnostic](ds S, s Severity) S {
	var out S
	for _, d := range ds {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders diagnostics by line and column, keeping the order of those
// at the same place; diagnostics without a line come first.
func Sort(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
}

// Closest suggests the known name nearest to s (case-insensitively, at
// most about half of s's length away), or "".
func Closest(s string, names []string) string {
	best, bestD := "", len(s)/2+1
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	low := strings.ToLower(s)
	for _, n := range sorted {
		if dd := EditDistance(low, strings.ToLower(n)); dd < bestD {
			best, bestD = n, dd
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
