package flow

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildReportsWhatParseReports(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		build *Builder
	}{
		{
			name:  "bad method name",
			yaml:  "name: F\nmethods:\n  bad-name: {start: true, do: {call: expression, expr: '1'}}\n",
			build: New("F").Method("bad-name", Expr("1")).Start().Flow(),
		},
		{
			name:  "self listen",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: {or: [a, b]}, do: {call: expression, expr: '2'}}\n",
			build: New("F").Method("a", Expr("1")).Start().Method("b", Expr("2")).ListenTo("a", "b").Flow(),
		},
		{
			name:  "unknown CEL root",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: ouputs.x}}\n",
			build: New("F").Method("a", Expr("ouputs.x")).Start().Flow(),
		},
		{
			name:  "bad template in with",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: code, ref: 'm:f', with: {q: ['${state.x', ok]}}}\n",
			build: New("F").Method("a", Code("m:f", map[string]any{"q": []string{"${state.x", "ok"}})).Start().Flow(),
		},
		{
			name: "each step problems",
			yaml: `name: F
methods:
  a:
    start: true
    do:
      call: each
      in: item.rows
      do:
        - {name: s, if: "size(", action: {call: expression, expr: "1"}}
        - {name: s, action: {call: expression, expr: "2"}}
        - {name: 9x, action: {call: expression, expr: "3"}}
`,
			build: New("F").Method("a", Each("item.rows",
				NewStep("s", Expr("1")).When("size("),
				NewStep("s", Expr("2")),
				NewStep("9x", Expr("3")),
			)).Start().Flow(),
		},
		{
			name:  "empty each",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: each, in: state.rows, do: []}}\n",
			build: New("F").Method("a", Each("state.rows")).Start().Flow(),
		},
		{
			name:  "nested each",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: each, in: state.rows, do: [{name: s, action: {call: each, in: item, do: []}}]}}\n",
			build: New("F").Method("a", Each("state.rows", NewStep("s", Each("item")))).Start().Flow(),
		},
		{
			name:  "crew with both sources",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: crew, from_declaration: x, with: {agents: {r: {role: R}}, tasks: [{description: d, expected_output: o}]}}}\n",
			build: New("F").Method("a", &Action{Call: CallCrew, FromDeclaration: "x", Crew: &Crew{Agents: []*Agent{{Name: "r", Role: "R"}}, Tasks: []*Task{{Description: "d", ExpectedOutput: "o"}}}}).Start().Flow(),
		},
		{
			name:  "crew without agents and tasks",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: crew, with: {agents: {}, tasks: []}}}\n",
			build: New("F").Method("a", CrewAction(&Crew{}, nil)).Start().Flow(),
		},
		{
			name:  "task context and agent references",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: crew, with: {agents: {r: {role: R}}, tasks: [{description: d, expected_output: o, agent: x, context: [later]}]}}}\n",
			build: New("F").Method("a", CrewAction(&Crew{Agents: []*Agent{{Name: "r", Role: "R"}}, Tasks: []*Task{{Description: "d", ExpectedOutput: "o", Agent: "x", Context: []string{"later"}}}}, nil)).Start().Flow(),
		},
		{
			name:  "state type",
			yaml:  "name: F\nstate: {type: dict, ref: 'm:S'}\nmethods: {}\n",
			build: New("F").StateSpec(&StateSpec{Type: "dict", Ref: "m:S"}),
		},
		{
			name:  "json schema state without schema",
			yaml:  "name: F\nstate: {type: json_schema}\n",
			build: New("F").StateSpec(&StateSpec{Type: "json_schema"}),
		},
		{
			name:  "condition without items",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: {and: []}, do: {call: expression, expr: '2'}}\n",
			build: New("F").Method("a", Expr("1")).Start().Method("b", Expr("2")).Listen(And()).Flow(),
		},
		{
			name:  "step action without call",
			yaml:  "name: F\nmethods:\n  a: {start: true, do: {call: each, in: state.rows, do: [{name: s, action: {ref: 'm:f'}}]}}\n",
			build: New("F").Method("a", Each("state.rows", NewStep("s", &Action{Ref: "m:f"}))).Start().Flow(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, parseErr := Parse([]byte(tt.yaml), "")
			var want Diagnostics
			require.ErrorAs(t, parseErr, &want)
			def, err := tt.build.Build()
			require.Nil(t, def)
			var got Diagnostics
			require.ErrorAs(t, err, &got)
			assert.ElementsMatch(t, places(want), places(got))
			for _, d := range got {
				assert.Zero(t, d.Line)
				assert.Empty(t, d.File)
			}
		})
	}
}

func TestBuildReportsShapes(t *testing.T) {
	tests := []struct {
		name  string
		build *Builder
		want  []where
	}{
		{
			name:  "missing action",
			build: New("F").Method("a", nil).Start().Flow(),
			want:  []where{{"methods.a.do", "missing", `Field required [type=missing]: method "a" needs a do action`}},
		},
		{
			name:  "duplicate and empty names",
			build: New("F").Method("a", Expr("1")).Start().Method("a", Expr("2")).ListenTo("x").Method("", Expr("3")).Start().Flow(),
			want: []where{
				{"methods.a", "duplicate_method", `method "a" is declared twice`},
				{"methods.", "method_name", `Flow method names must match ^[A-Za-z_][A-Za-z0-9_]*$; rename "" (for example "_")`},
			},
		},
		{
			name:  "missing refs and agent",
			build: New("F").Method("a", Code("", nil)).Start().Method("b", AgentAction(nil)).ListenTo("a").Flow(),
			want: []where{
				{"methods.b.do.with", "missing", `Field required [type=missing]: add "with"`},
				{"methods.a.do.ref", "missing", `Field required [type=missing]: add "ref"`},
			},
		},
		{
			name:  "nil step and step action",
			build: New("F").Method("a", Each("state.rows", nil, NewStep("s", nil))).Start().Flow(),
			want: []where{
				{"methods.a.do.do[0]", "dict_type", "Input should be a valid dictionary [type=dict_type]: an each step must be a mapping, got null"},
				{"methods.a.do.do[1].action", "missing", `Field required [type=missing]: add "action"`},
			},
		},
		{
			name:  "unknown call and bad data",
			build: New("F").Method("a", &Action{Call: "python"}).Start().Method("b", Code("m:f", map[string]any{"x": []any{struct{}{}}})).ListenTo("a").Flow(),
			want: []where{
				{"methods.a.do.call", "call_invalid", "call must be one of code, tool, crew, agent, expression, script, each; got 'python'"},
				{"methods.b.do.with.x[0]", "data_type", "a struct {} is not JSON data; use nil, bool, numbers, string, []any or map[string]any"},
			},
		},
		{
			name:  "unnamed crew agent",
			build: New("F").Method("a", CrewAction(&Crew{Agents: []*Agent{{Role: "R"}}, Tasks: []*Task{{Description: "d", ExpectedOutput: "o"}}}, nil)).Start().Flow(),
			want:  []where{{"methods.a.do.with.agents[0].name", "crew_agents", "agents[0].name must be a non-empty string"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := tt.build.Build()
			require.Nil(t, def)
			var got Diagnostics
			require.ErrorAs(t, err, &got)
			assert.ElementsMatch(t, tt.want, places(got.Errors()))
		})
	}
}
