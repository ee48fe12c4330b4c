package flow

import (
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/internal/diag"
)

// Severity says whether a diagnostic stops a definition from loading.
type Severity = diag.Severity

// Severities, most serious first.
const (
	SeverityError   = diag.SeverityError
	SeverityWarning = diag.SeverityWarning
)

// A Diagnostic is one problem found in a definition, with its place.
type Diagnostic = diag.Diagnostic

// Diagnostics is every problem found in a definition. As an error it stands
// for a definition that did not load: at least one diagnostic is an error.
type Diagnostics []Diagnostic

// Error lists the diagnostics, one per line.
func (ds Diagnostics) Error() string { return diag.Error("flow", ds) }

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return diag.HasErrors(ds) }

// Errors returns the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics { return diag.Filter(ds, SeverityError) }

// Warnings returns the warning diagnostics.
func (ds Diagnostics) Warnings() Diagnostics { return diag.Filter(ds, SeverityWarning) }

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
func (ds Diagnostics) sort() { diag.Sort(ds) }

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
