package mcp

import (
	"slices"
	"sort"
)

// A Filter is a static tool_filter: which of a server's tools the agent
// gets. Blocked wins over Allowed; a non-empty Allowed admits only its
// names; empty lists admit every tool. A name matches a tool's name as the
// server gives it, that name sanitized (CrewAI compares sanitized names),
// or the full name the model sees.
type Filter struct {
	Allowed []string
	Blocked []string
}

// Admits reports whether the filter keeps a tool whose server name is
// original and whose name for the model is full. A nil filter admits all.
func (f *Filter) Admits(original, full string) bool {
	if f == nil {
		return true
	}
	names := []string{original, Sanitize(original), full}
	match := func(list []string) bool {
		for _, n := range list {
			if slices.Contains(names, n) || Sanitize(n) == names[1] {
				return true
			}
		}
		return false
	}
	if match(f.Blocked) {
		return false
	}
	return len(f.Allowed) == 0 || match(f.Allowed)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Keeps reports whether the agent gets the server's tool named original:
// the #tool of a string entry, when set, must name it (CrewAI compares
// sanitized names), and the filter must admit it.
func (s Server) Keeps(original string) bool {
	if s.Tool != "" && Sanitize(s.Tool) != Sanitize(original) {
		return false
	}
	return s.Filter.Admits(original, ToolName(s.ToolPrefix(), original))
}
