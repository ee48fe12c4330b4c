package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// A Problem is something wrong with an mcps entry: an error, which keeps the
// flow from loading, or a warning (a key that is ignored).
type Problem struct {
	// Path is where the problem is, below the entry: "" for the entry
	// itself, "args[1]", "tool_filter.allowed_tool_names".
	Path string
	// Code names the kind of problem, as flow diagnostics do
	// ("mcp_reference", "missing", "list_type", "unknown_key", ...).
	Code    string
	Message string
	Warning bool
}

// Problems are the problems of one or more entries.
type Problems []Problem

// Err returns the errors among ps as one error, or nil when there are none.
// Each line reads "mcp: PATH: MESSAGE".
func (ps Problems) Err() error {
	var lines []string
	for _, p := range ps {
		if p.Warning {
			continue
		}
		if p.Path == "" {
			lines = append(lines, "mcp: "+p.Message)
		} else {
			lines = append(lines, fmt.Sprintf("mcp: %s: %s", p.Path, p.Message))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}

// problems collects the problems of one entry.
type problems struct {
	list Problems
	// source names the entry in CrewAI's messages, such as "mcps[0]".
	source string
}

func (p *problems) errorf(path, code, format string, args ...any) {
	p.list = append(p.list, Problem{Path: path, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) warnf(path, code, format string, args ...any) {
	p.list = append(p.list, Problem{Path: path, Code: code, Message: fmt.Sprintf(format, args...), Warning: true})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
