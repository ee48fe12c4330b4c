package skill

import (
	"fmt"
	"strings"
)

// Severity says whether a [Problem] makes a skill invalid.
type Severity int

// Severities, most serious first.
const (
	Error Severity = iota
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText renders the severity as String does.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// A Problem is one thing wrong with a skill, with its place when known.
type Problem struct {
	// File is the SKILL.md (or folder) the problem is in; "" for an inline
	// skill.
	File string
	// Line and Column are 1-based; 0 when the problem has no place.
	Line, Column int
	// Offset is the byte offset of the place in the text that was parsed;
	// -1 when the problem has no place.
	Offset   int
	Severity Severity
	Message  string
}

// String formats the problem as FILE:LINE:COL: MESSAGE, leaving out the
// parts that are unknown, and marking warnings.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		if p.File != "" {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%d:%d", p.Line, p.Column)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Severity == Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is every problem found in a skill. As an error it stands for a
// skill that is invalid: at least one problem is an error.
type Problems []Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, 0, len(ps))
	for _, p := range ps {
		lines = append(lines, p.String())
	}
	if len(lines) == 1 {
		return "skill: " + lines[0]
	}
	return fmt.Sprintf("skill: %d problems:\n%s", len(lines), strings.Join(lines, "\n"))
}

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the problems that are errors.
func (ps Problems) Errors() Problems { return ps.filter(Error) }

// Warnings returns the problems that are warnings.
func (ps Problems) Warnings() Problems { return ps.filter(Warning) }

func (ps Problems) filter(s Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}
