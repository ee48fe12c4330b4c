package flow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The JSON Schema of the format knows the skills lists of agents and
// crews.
func TestJSONSchemaSkills(t *testing.T) {
	s := compileSchema(t)
	agent := "name: F\nmethods:\n  a: {do: {call: agent, with: {role: R, goal: G, backstory: B, input: x, skills: SKILLS}}}\n"
	crew := "name: F\nmethods:\n  a: {do: {call: crew, with: {skills: SKILLS, agents: {w: {role: R, goal: G, backstory: B}}, tasks: [{description: d, expected_output: o}]}}}\n"
	for _, tt := range []struct {
		src, skills string
		ok          bool
	}{
		{agent, "[./skills, '@acme/pdf']", true},
		{agent, "[]", false},
		{agent, "5", false},
		{agent, "[{python: x}]", false},
		{crew, "[]", true},
		{crew, "./skills", false},
	} {
		src := []byte(strings.Replace(tt.src, "SKILLS", tt.skills, 1))
		err := s.Validate(asJSON(t, src))
		assert.Equal(t, tt.ok, err == nil, "%s: %v", src, err)
	}
}
