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

func TestGoGuardrailFromTheBuilder(t *testing.T) {
	crew := &flow.Crew{
		Agents: []*flow.Agent{{Name: "writer", Role: "Writer", Goal: "Write", Backstory: "Writes."}},
		Tasks: []*flow.Task{{Name: "draft", Description: "Write a line.", ExpectedOutput: "A line.", Agent: "writer",
			Guardrails: []flow.Guardrail{{Ref: "app:no_digits"}, {Func: func(_ context.Context, out *action.TaskOutput) error {
				if !strings.HasSuffix(out.Raw, ".") {
					return errors.New("end with a full stop")
				}
				return nil
			}}}}},
	}
	def, err := flow.New("Desk").Method("write", flow.CrewAction(crew, nil)).Start().Build()
	require.NoError(t, err)
	model := fake.New(
		fake.Reply{Match: "end with a full stop", Text: "Hello, kind reader."},
		fake.Reply{Match: "do not quote numbers", Text: "Hello, kind reader"},
		fake.Reply{Text: "Order 42 shipped."},
	)
	res, err := flow.NewEngine(flow.WithLLM(model), flow.WithGuardrail("app:no_digits", noDigits)).Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "Hello, kind reader.", res.Outputs["write"].(map[string]any)["raw"])
	// A Go function has no text to write back; a ref has.
	_, err = def.YAML()
	assert.ErrorIs(t, err, flow.ErrNotSerializable)
	assert.ErrorContains(t, err, "guardrails[1]: the guardrail is a Go function with no ref")
	crew.Tasks[0].Guardrails = crew.Tasks[0].Guardrails[:1]
	def, err = flow.New("Desk").Method("write", flow.CrewAction(crew, nil)).Start().Build()
	require.NoError(t, err)
	y, err := def.YAML()
	require.NoError(t, err)
	back, err := flow.Parse(y, "desk.yaml")
	require.NoError(t, err)
	assert.Equal(t, []flow.Guardrail{{Ref: "app:no_digits"}}, back.Methods[0].Do.Crew.Tasks[0].Guardrails)
}

func TestGuardrailShapesAreChecked(t *testing.T) {
	_, err := flow.Parse([]byte(strings.Replace(guardedCrew, "%s", "guardrail: {reff: x}", 1)), "desk.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "desk.yaml:13:")
	assert.Contains(t, err.Error(), "a guardrail is a requirement text or {ref: NAME}")
}
