package cel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckExprReportsWhatCertainlyFails(t *testing.T) {
	roots := []string{RootItem, RootOutputs, RootState}
	tests := []struct {
		expr, code, at string
	}{
		{"item.upper()", CodeUnknownFunction, "upper()"},
		{"state.items.exists(i, i.upper())", CodeUnknownFunction, "upper())"},
		{"1 + 'a'", CodeType, "+ 'a'"},
		{"size(1)", CodeType, "size(1)"},
		{"'abc'.contains(1)", CodeType, "contains(1)"},
		{"1 ? 2 : 3", CodeType, "? 2 : 3"},
		{"1 && true", CodeType, "1 && true"},
		{"'a'.x", CodeType, ".x"},
		{"int('abc')", CodeAlwaysFails, "int('abc')"},
		{"state.x + int('abc')", CodeAlwaysFails, "int('abc')"},
		{"timestamp('x')", CodeAlwaysFails, "timestamp('x')"},
		{"'x'.matches('(')", CodeAlwaysFails, "'x'.matches('(')"},
		{"state.x.matches('(')", CodeAlwaysFails, "state.x.matches('(')"},
		{"1 / 0", CodeAlwaysFails, "1 / 0"},
		{"[1, 2][5]", CodeAlwaysFails, "[1, 2][5]"},
		{"{'a': 1}.b", CodeAlwaysFails, "{'a': 1}.b"},
		{"[1, 2].map(x, int('z'))", CodeAlwaysFails, "int('z'))"},
		{"state.x * 'a'", CodeType, "* 'a'"},
		{"size(state.x) + 'a'", CodeType, "+ 'a'"},
		{"1 ? state.a : 2", CodeType, "? state.a : 2"},
		{"state.items.map(x, x.upper())", CodeUnknownFunction, "upper())"},
		{"'a' + state.x", "", ""},
		{"state.x + 1", "", ""},
		{"state.items.map(x, x * 2)", "", ""},
		{"state.x == 1 ? 'a' : 2", "", ""},
		{"1 == 1.0", "", ""},
		{"1 < 1.0", "", ""},
		{"state.x in [1, 'a']", "", ""},
		{"false && 1 / 0 == 1", "", ""},
		{"dyn(1) + 'a'", CodeAlwaysFails, "dyn(1) + 'a'"},
		{"state.s.matches('^[a-z]+$')", "", ""},
		// Constants too large to evaluate at load are not judged.
		{"size('ab'.replace('', '" + strings.Repeat("y", 70_000) + "')) > 0", "", ""},
	}
	for _, tt := range tests {
		problems := CheckExpr("p", tt.expr, roots)
		if tt.code == "" {
			assert.Empty(t, problems, tt.expr)
			continue
		}
		if assert.Len(t, problems, 1, tt.expr) {
			assert.Equal(t, tt.code, problems[0].Code, tt.expr)
			assert.Equal(t, tt.at, tt.expr[problems[0].Offset:], tt.expr)
			assert.Contains(t, problems[0].Message, " at p", tt.expr)
		}
	}
}
