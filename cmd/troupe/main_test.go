package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// troupe runs the command line and returns its exit code, stdout and stderr.
func troupe(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageErrorsExitWithTwo(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "a command is required"},
		{"unknown command", []string{"bogus"}, `unknown command "bogus"`},
		{"unknown flag", []string{"validate", "--bogus", "f.yaml"}, "unknown flag: --bogus"},
		{"validate without files", []string{"validate"}, "requires at least 1 arg"},
		{"schema with an argument", []string{"schema", "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := troupe(t, "", tt.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
			assert.Contains(t, errOut, "troupe --help")
		})
	}
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := troupe(t, "", "--help")
	assert.Equal(t, exitOK, code)
	for _, c := range []string{"validate", "schema"} {
		assert.Contains(t, out, c)
	}
}
