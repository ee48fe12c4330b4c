package flow_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

func noDigits(_ context.Context, out *action.TaskOutput) error {
	if strings.ContainsAny(out.Raw, "0123456789") {
		return errors.New("do not quote numbers")
	}
	return nil
}

const guardedCrew = `
schema: crewai.flow/v1
name: Desk
methods:
  write:
    start: true
    do:
      call: crew
      with:
        agents:
          writer: {role: Writer, goal: Write, backstory: Writes.}
        tasks:
          - {name: draft, description: Write a line., expected_output: A line., agent: writer, %s}
`

func TestGoGuardrailByRef(t *testing.T) {
	cases := map[string]string{
		"guardrail":       `guardrail: {ref: "app:no_digits"}`,
		"guardrails list": `guardrails: [{ref: "app:no_digits"}, "Must be polite."]`,
	}
	for name, key := range cases {
		t.Run(name, func(t *testing.T) {
			model := fake.New(
				fake.Reply{Match: "Must be polite", JSON: map[string]any{"valid": true}},
				fake.Reply{Match: "do not quote numbers", Text: "Hello, kind reader."},
				fake.Reply{Text: "Order 42 shipped."},
			)
			def := mustParse(t, strings.Replace(guardedCrew, "%s", key, 1))
			res, err := flow.NewEngine(flow.WithLLM(model), flow.WithGuardrail("app:no_digits", noDigits)).
				Run(context.Background(), def, nil)
			require.NoError(t, err)
			assert.Equal(t, "Hello, kind reader.", res.Outputs["write"].(map[string]any)["raw"])
		})
	}
}

func TestUnregisteredGuardrailFailsCompile(t *testing.T) {
	def := mustParse(t, strings.Replace(guardedCrew, "%s", `guardrail: {ref: "app:nowhere"}`, 1))
	_, err := flow.NewEngine(flow.WithLLM(fake.New())).Compile(def)
	var ce *flow.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), `no guardrail is registered under "app:nowhere"`)
	assert.Contains(t, err.Error(), "flow.WithGuardrail")
}
