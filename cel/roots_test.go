package cel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExprRoots(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want []string
	}{
		{"select", "state.topic", []string{"state"}},
		{"both roots", "state.a + outputs.b.c", []string{"outputs", "state"}},
		{"function names are not roots", "size(state.x) > 0 && int(outputs.n) == 1", []string{"outputs", "state"}},
		{"member function receivers are walked", "state.name.startsWith(prefix)", []string{"prefix", "state"}},
		{"has argument is walked", "has(state.x.y)", []string{"state"}},
		{"macro variable is local", "state.items.all(x, x > 0)", []string{"state"}},
		{"macro variable used outside its body", "state.items.map(x, x * 2) + [x]", []string{"state", "x"}},
		{"macro range is outside the body", "x.all(x, x > 0)", []string{"x"}},
		{"free name inside macro body", "state.items.filter(i, i == limit)", []string{"limit", "state"}},
		{"exists_one", "state.l.exists_one(v, v == 1)", []string{"state"}},
		{"nested macros", "state.a.all(x, x.b.exists(y, y == x.c && z))", []string{"state", "z"}},
		{"two-variable macro", "state.m.all(k, v, k != '' && v > w)", []string{"state", "w"}},
		{"type name as value", "type(state.x) == string", []string{"state", "string"}},
		{"list and map literals", "[a, {'k': b, c: 1}]", []string{"a", "b", "c"}},
		{"index", "outputs['x'][state.i]", []string{"outputs", "state"}},
		{"ternary", "ok ? yes : no", []string{"no", "ok", "yes"}},
		{"struct type name", "google.protobuf.Int64Value{value: n}", []string{"google", "n"}},
		{"leading dot", ".state.x", []string{"state"}},
		{"literals only", "1 + 2 == 3 && 'a' != b'b'", []string{}},
		{"accumulator never counts", "[1, 2].map(x, x)", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExprRoots(tt.expr)
			if len(tt.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
