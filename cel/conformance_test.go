package cel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// conformanceDir is the shared CrewAI corpus, next to the repository.
const conformanceDir = "../../shared/conformance/crewai"

// toolResult plays the fixture tools of the upstream tests:
// StaticSearchTool returns '<prefix>:<search_query>' (prefix defaults to
// 'search'); TypedInputsTool returns '<count>:<domains joined by ,>'.
func toolResult(t *testing.T, ref string, args map[string]any) string {
	t.Helper()
	switch {
	case strings.HasSuffix(ref, ":StaticSearchTool"):
		prefix, ok := args["prefix"]
		if !ok {
			prefix = "search"
		}
		return fmt.Sprintf("%v:%v", prefix, args["search_query"])
	case strings.HasSuffix(ref, ":TypedInputsTool"):
		count, ok := args["count"].(int64)
		require.True(t, ok, "count keeps its int type, got %T", args["count"])
		domains, ok := args["include_domains"].([]any)
		require.True(t, ok, "include_domains keeps its list type, got %T", args["include_domains"])
		parts := make([]string, len(domains))
		for i, d := range domains {
			parts[i] = d.(string)
		}
		return fmt.Sprintf("%d:%s", count, strings.Join(parts, ","))
	}
	t.Fatalf("unknown tool %s", ref)
	return ""
}

// TestConformanceToolTemplates renders the with maps of the tool fixtures
// and checks the tool result their MANIFEST row expects.
func TestConformanceToolTemplates(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skip("conformance corpus not found")
	}
	tests := []struct {
		file    string
		state   map[string]any
		outputs map[string]any
		want    string
	}{
		{"tool_static_inputs.yaml", nil, nil, "found:ai agents"},
		{"tool_round_trip.json", nil, nil, "search:ai agents"},
		{"tool_cel_ternary_inputs.yaml", map[string]any{"topic": "ai", "begin_ran": true}, map[string]any{"begin": "hello"}, "found:ai agents"},
		{"tool_cel_string_literal_braces.json", nil, nil, "p}x:wrapped a}b value"},
		{"tool_expr_with_surrounding_text.json", map[string]any{"topic": "ai"}, nil, "p:ai extra"},
		{"tool_adjacent_expressions.json", nil, nil, "p:ab"},
		{"tool_multiple_expressions_with_literals.json", map[string]any{"a": "one", "b": "two"}, nil, "p:here's one and another two!"},
		{"tool_non_string_values_as_json.json", map[string]any{"n": int64(3), "ok": true, "d": map[string]any{"a": int64(1)}}, nil, `p:n=3; ok=true; d={"a": 1}`},
		{"tool_null_as_empty.json", map[string]any{"note": nil}, nil, "p:note:;"},
		{"tool_object_literal_field.json", nil, nil, "p:result: v end"},
		{"tool_plain_dollar_and_escape.json", nil, nil, "p:$5 or $more, escaped ${x"},
		{"tool_object_literal_keeps_type.json", nil, nil, "p}x:ai agents"},
		{"tool_latest_output_by_name.yaml", map[string]any{"begin_ran": true}, map[string]any{"begin": "hello"}, "search:hello agents"},
		{"tool_state_and_outputs.yaml", map[string]any{"prefix": "found"},
			map[string]any{"build_query": map[string]any{"query": "ai agents", "suffix": " news"}}, "found:ai agents news"},
		{"tool_whole_expression_keeps_types.yaml", map[string]any{"limit": int64(2), "domains": []any{"crewai.com", "example.com"}}, nil,
			"2:crewai.com,example.com"},
		{"tool_list_item_interpolation.yaml", map[string]any{"limit": int64(2), "primary_domain": "crewai.com", "domain_suffix": "example.com"}, nil,
			"2:crewai.com,docs.example.com"},
		{"tool_ticket_template.yaml", map[string]any{
			"ticket":   map[string]any{"id": int64(123), "subject": nil},
			"messages": []any{map[string]any{"body": "Initial report"}},
			"prefix":   "ticket",
		}, nil, "ticket:Ticket ID: 123; Subject: ; Message: Initial report"},
	}
	env := newTestEnv(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(conformanceDir, "valid", tt.file))
			require.NoError(t, err)
			var doc struct {
				Methods map[string]struct {
					Do struct {
						Call string         `yaml:"call"`
						Ref  string         `yaml:"ref"`
						With map[string]any `yaml:"with"`
					} `yaml:"do"`
				} `yaml:"methods"`
			}
			require.NoError(t, yaml.Unmarshal(data, &doc))
			found := false
			for name, m := range doc.Methods {
				if m.Do.Call != "tool" {
					continue
				}
				found = true
				src := "methods." + name + ".do.with"
				assert.Empty(t, CheckValue(src, m.Do.With, []string{RootOutputs, RootState}))
				v, err := env.CompileValue(m.Do.With)
				require.NoError(t, err)
				rendered, err := v.Render(context.Background(), &Vars{State: tt.state, Outputs: tt.outputs})
				require.NoError(t, err)
				assert.Equal(t, tt.want, toolResult(t, m.Do.Ref, rendered.(map[string]any)))
			}
			require.True(t, found, "fixture has a tool method")
		})
	}
}

// TestConformanceInvalidTemplates checks the CEL messages the invalid
// fixtures expect.
func TestConformanceInvalidTemplates(t *testing.T) {
	allowed := []string{RootOutputs, RootState}
	tests := []struct {
		name     string
		problems []Problem
		want     string
	}{
		{"tool_with_unterminated", CheckTemplate("methods.search.do.with.search_query", "cost ${state.a", allowed), "unterminated"},
		{"tool_with_empty_expression", CheckTemplate("methods.search.do.with.search_query", "x ${} y", allowed), "empty CEL expression"},
		{"tool_with_unknown_root", CheckTemplate("methods.search.do.with.search_query", "a ${foo.bar} b", allowed), "unknown CEL root"},
		{"agent_input_invalid_cel", CheckTemplate("methods.answer.do.with.input", "${state.}", allowed), "invalid CEL expression"},
		{"tool_with_invalid_cel", CheckTemplate("methods.search.do.with.search_query", "${state.}", allowed), "invalid CEL expression"},
		{"expression_invalid_cel", CheckExpr("methods.score.do.expr", "state.", allowed), "invalid CEL expression"},
		{"expression_unknown_root", CheckExpr("methods.score.do.expr", "score >= 80", allowed), "unknown CEL root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Len(t, tt.problems, 1)
			assert.Contains(t, tt.problems[0].Message, tt.want)
		})
	}
}
