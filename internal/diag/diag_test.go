package diag

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	names := []string{"max_steps", "model", "tools"}
	tests := []struct{ in, want string }{
		{"max_step", "max_steps"},
		{"MODEL", "model"},
		{"tool", "tools"},
		{"zzzzzz", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Closest(tt.in, names), tt.in)
	}
	assert.Equal(t, 3, EditDistance("kitten", "sitting"))
}

func TestDiagnostics(t *testing.T) {
	ds := []Diagnostic{
		{File: "a.yaml", Line: 3, Column: 5, Path: "agent.name", Severity: SeverityWarning, Message: "w"},
		{File: "a.yaml", Line: 1, Column: 1, Severity: SeverityError, Message: "e"},
	}
	assert.True(t, HasErrors(ds))
	assert.Len(t, Filter(ds, SeverityWarning), 1)
	Sort(ds)
	assert.Equal(t, "a.yaml:1:1: error: e", ds[0].String())
	assert.Equal(t, "agent: 2 problems:\na.yaml:1:1: error: e\na.yaml:3:5: warning: agent.name: w", Error("agent", ds))
	assert.Equal(t, "flow: 4:2: error: x", Error("flow", []Diagnostic{{Line: 4, Column: 2, Message: "x"}}))
	var s Severity
	assert.NoError(t, s.UnmarshalText([]byte("warning")))
	assert.Equal(t, SeverityWarning, s)
	assert.Error(t, s.UnmarshalText([]byte("fatal")))
}
