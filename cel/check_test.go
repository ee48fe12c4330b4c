package cel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var baseRoots = []string{RootState, RootOutputs}

func TestCheckExprMessages(t *testing.T) {
	const src = "methods.m.do.expr"
	tests := []struct {
		name    string
		expr    string
		allowed []string
		want    []Problem // Message compared exactly unless prefix is set
		prefix  bool
	}{
		{"valid", "state.topic + outputs.step", baseRoots, nil, false},
		{"valid wrapped", " ${ state.topic } ", baseRoots, nil, false},
		{"empty", "", baseRoots, []Problem{{
			Message: "empty CEL expression at methods.m.do.expr. Provide a CEL expression such as state.topic or outputs.step_name.",
			Code:    CodeEmpty,
		}}, false},
		{"empty wrapper", "  ${  }", baseRoots, []Problem{{
			Message: "empty CEL expression at methods.m.do.expr. Provide a CEL expression such as state.topic or outputs.step_name.",
			Code:    CodeEmpty, Offset: 2,
		}}, false},
		{"parse failure", "state.", baseRoots, []Problem{{
			Message: "invalid CEL expression at methods.m.do.expr: 'state.'. Check the CEL syntax. Parser details: ERROR: <input>:1:7: Syntax error:",
			Code:    CodeInvalid, Offset: 6,
		}}, true},
		{"parse failure quoted by repr", "state.x == 'a", baseRoots, []Problem{{
			Message: "invalid CEL expression at methods.m.do.expr: \"state.x == 'a\". Check the CEL syntax. Parser details: ",
			Code:    CodeInvalid, Offset: 11,
		}}, true},
		{"unknown roots sorted", "zed + score >= 80", baseRoots, []Problem{{
			Message: "unknown CEL root at methods.m.do.expr: 'score', 'zed'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
			Code:    CodeUnknownRoot,
		}}, false},
		{"unknown root offset", "state.x + ${", baseRoots, nil, false},
		{"item allowed in each step", "item.name + state.x", []string{RootItem, RootOutputs, RootState}, nil, false},
		{"item not allowed outside", "item.name", baseRoots, []Problem{{
			Message: "unknown CEL root at methods.m.do.expr: 'item'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
			Code:    CodeUnknownRoot,
		}}, false},
		{"allowed list sorted", "x", []string{RootState, RootItem, RootOutputs}, []Problem{{
			Message: "unknown CEL root at methods.m.do.expr: 'x'; allowed roots: item, outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
			Code:    CodeUnknownRoot,
		}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckExpr(src, tt.expr, tt.allowed)
			if tt.name == "unknown root offset" {
				// "state.x + ${" parses as nothing sensible: it must be invalid.
				require.Len(t, got, 1)
				assert.Equal(t, CodeInvalid, got[0].Code)
				return
			}
			if !tt.prefix {
				assert.Equal(t, tt.want, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.want[0].Code, got[0].Code)
			assert.Equal(t, tt.want[0].Offset, got[0].Offset)
			assert.Contains(t, got[0].Message, tt.want[0].Message)
		})
	}
}

func TestCheckExprOffsets(t *testing.T) {
	tests := []struct {
		expr   string
		offset int
	}{
		{"state.x + bad", 10},
		{"  ${ bad }", 5},
		{"'é' + bad", 7},
		{"bad2 + bad1", 0},
		{"state.x +\n  bad", 12},
	}
	for _, tt := range tests {
		got := CheckExpr("p", tt.expr, baseRoots)
		require.Len(t, got, 1, tt.expr)
		assert.Equal(t, tt.offset, got[0].Offset, tt.expr)
	}
}

func TestCheckTemplateMessages(t *testing.T) {
	const src = "methods.m.do.with.query"
	tests := []struct {
		name string
		in   string
		want []Problem
	}{
		{"valid", "a ${state.x} b ${outputs.y}", nil},
		{"no expression", "plain text", nil},
		{"unterminated", "cost ${state.a", []Problem{{
			Message: "unterminated ${...} expression in 'cost ${state.a' at methods.m.do.with.query",
			Code:    CodeTemplateUnterminated, Offset: 5,
		}}},
		{"lexer error", "a ${state.a ; }", []Problem{{
			Message: "unterminated or invalid ${...} expression in 'a ${state.a ; }': No terminal matches ';' in the current parser context, at line 1 col 9 at methods.m.do.with.query",
			Code:    CodeTemplateInvalid, Offset: 12,
		}}},
		{"empty", "x ${} y", []Problem{{
			Message: "empty CEL expression in 'x ${} y' at methods.m.do.with.query",
			Code:    CodeTemplateEmpty, Offset: 2,
		}}},
		{"unknown root in one expression", "a ${foo.bar} b", []Problem{{
			Message: "unknown CEL root at methods.m.do.with.query: 'foo'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
			Code:    CodeUnknownRoot, Offset: 4,
		}}},
		{"numbered expressions", "${state.a} ${foo} ${bar}", []Problem{
			{
				Message: "unknown CEL root at methods.m.do.with.query (expression 2): 'foo'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
				Code:    CodeUnknownRoot, Offset: 13,
			},
			{
				Message: "unknown CEL root at methods.m.do.with.query (expression 3): 'bar'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.",
				Code:    CodeUnknownRoot, Offset: 20,
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CheckTemplate(src, tt.in, baseRoots))
		})
	}
}

func TestCheckTemplateInvalidExpression(t *testing.T) {
	got := CheckTemplate("methods.a.do.with.input", "Q: ${state.}", baseRoots)
	require.Len(t, got, 1)
	assert.Equal(t, CodeInvalid, got[0].Code)
	assert.Equal(t, 11, got[0].Offset)
	assert.Contains(t, got[0].Message,
		"invalid CEL expression at methods.a.do.with.input: 'state.'. Check the CEL syntax. Parser details: ERROR: <input>:1:7")
}

func TestCheckValuePaths(t *testing.T) {
	v := map[string]any{
		"query":   "${foo}",
		"domains": []any{"${state.a}", "x ${bar}"},
		"nested":  map[string]any{"deep": "${baz}"},
		"static":  int64(3),
		"strs":    []string{"${qux}"},
		"smap":    map[string]string{"k": "${quux}"},
	}
	got := CheckValue("methods.m.do.with", v, baseRoots)
	var where []string
	for _, p := range got {
		where = append(where, p.Message[len("unknown CEL root at "):indexByte(p.Message, ':')])
	}
	assert.Equal(t, []string{
		"methods.m.do.with.domains[1]",
		"methods.m.do.with.nested.deep",
		"methods.m.do.with.query",
		"methods.m.do.with.smap.k",
		"methods.m.do.with.strs[0]",
	}, where)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func TestExprOutputs(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{"outputs.b + outputs.a", []string{"a", "b"}},
		{"outputs['step'] + outputs.a.b", []string{"a", "step"}},
		{"state.outputs.x", nil},
		{"[1].map(outputs, outputs.x)", nil},
		{"has(outputs.maybe)", []string{"maybe"}},
		{"state.", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ExprOutputs(tt.expr), tt.expr)
	}
	assert.Equal(t, []string{"a", "b"}, TemplateOutputs("${outputs.b} and ${outputs.a + outputs.b}"))
	assert.Nil(t, TemplateOutputs("${"))
}
