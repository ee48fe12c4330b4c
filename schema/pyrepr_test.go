package schema

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPyReprMatchesPython(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, "None"},
		{true, "True"},
		{int64(-3), "-3"},
		{5.0, "5.0"},
		{0.1, "0.1"},
		{1e16, "1e+16"},
		{1.5e-5, "1.5e-05"},
		{123456789012345.6, "123456789012345.6"},
		{math.Inf(-1), "-inf"},
		{"it's", `"it's"`},
		{`a'b"c`, `'a\'b"c'`},
		{"tab\there\n", `'tab\there\n'`},
		{"\x01", `'\x01'`},
		{[]any{int64(1), "x"}, "[1, 'x']"},
		{obj("b", int64(1), "a", nil), "{'a': None, 'b': 1}"},
		{7, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, pyRepr(tt.in))
		})
	}
}
