package pyjson

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

type point struct {
	X int     `json:"x"`
	Y float64 `json:"y"`
}

type label string

func TestDumps(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, "null"},
		{"true", true, "true"},
		{"false", false, "false"},
		{"int64", int64(-42), "-42"},
		{"int", 7, "7"},
		{"int32", int32(8), "8"},
		{"uint8 via reflect", uint8(9), "9"},
		{"float integral", 3.0, "3.0"},
		{"float tenth", 0.1, "0.1"},
		{"float big exponent", 1e20, "1e+20"},
		{"float small exponent", 1e-5, "1e-05"},
		{"float 1e16", 1e16, "1e+16"},
		{"float 1e15", 1e15, "1000000000000000.0"},
		{"float long", 123456789012345678.0, "1.2345678901234568e+17"},
		{"float 1.5e-07", 1.5e-7, "1.5e-07"},
		{"float negative zero", math.Copysign(0, -1), "-0.0"},
		{"float 0.0001", 0.0001, "0.0001"},
		{"float third", 1.0 / 3, "0.3333333333333333"},
		{"float denormal", 5e-324, "5e-324"},
		{"float max", math.MaxFloat64, "1.7976931348623157e+308"},
		{"float32", float32(2.5), "2.5"},
		{"inf", math.Inf(1), "Infinity"},
		{"-inf", math.Inf(-1), "-Infinity"},
		{"nan", math.NaN(), "NaN"},
		{"string plain", "hi", `"hi"`},
		{"string escapes", "a\"b\\c\n\t\x01\x7fé€😀\u2028", "\"a\\\"b\\\\c\\n\\t\\u0001\x7fé€😀\u2028\""},
		{"string short escapes", "\b\f\r", `"\b\f\r"`},
		{"empty list", []any{}, "[]"},
		{"list", []any{int64(1), int64(2)}, "[1, 2]"},
		{"string list", []string{"a", "b"}, `["a", "b"]`},
		{"map sorted", map[string]any{"b": []any{true, nil}, "a": int64(1)}, `{"a": 1, "b": [true, null]}`},
		{"empty map", map[string]any{}, "{}"},
		{"string map", map[string]string{"z": "1", "y": "2"}, `{"y": "2", "z": "1"}`},
		{"nested", map[string]any{"d": map[string]any{"a": 1.5}}, `{"d": {"a": 1.5}}`},
		{"json number int", json.Number("12"), "12"},
		{"json number float", json.Number("1.0"), "1.0"},
		{"typed slice", []int{1, 2}, "[1, 2]"},
		{"typed map", map[string]int{"k": 1}, `{"k": 1}`},
		{"named string", label("x"), `"x"`},
		{"struct via encoding/json", point{X: 1, Y: 2}, `{"x": 1, "y": 2}`},
		{"nil slice", []any(nil), "[]"},
		{"nil typed slice", []int(nil), "[]"},
		{"nil typed map", map[string]int(nil), "{}"},
		{"nil pointer", (*point)(nil), "null"},
		{"bytes as base64", []byte("hi"), `"aGk="`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Dumps(tt.in))
		})
	}
}

func TestRepr(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"none", nil, "None"},
		{"bools", []any{true, false}, "[True, False]"},
		{"int", int64(3), "3"},
		{"float", 3.0, "3.0"},
		{"inf", math.Inf(1), "inf"},
		{"nan", math.NaN(), "nan"},
		{"plain", "publish", "'publish'"},
		{"single quote inside", "it's", `"it's"`},
		{"double quote inside", `a"b`, `'a"b'`},
		{"both quotes", `both ' "`, `'both \' "'`},
		{"unprintable", "\x00\x7f\u00a0é\u200b😀\U000e0001\t\\", `'\x00\x7f\xa0é\u200b😀\U000e0001\t\\'`},
		{"newline", "a\nb\r", `'a\nb\r'`},
		{"condition map", map[string]any{"or": []any{"publish", "revise"}}, "{'or': ['publish', 'revise']}"},
		{"string list", []string{"a"}, "['a']"},
		{"string map", map[string]string{"k": "v"}, "{'k': 'v'}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Repr(tt.in))
		})
	}
}

func TestAppendDumpsReusesBuffer(t *testing.T) {
	buf := make([]byte, 0, 64)
	buf = AppendDumps(buf, "x")
	buf = append(buf, ' ')
	buf = AppendDumps(buf, int64(1))
	assert.Equal(t, `"x" 1`, string(buf))
}

func BenchmarkDumps(b *testing.B) {
	v := map[string]any{"a": int64(1), "b": []any{true, nil, 2.5, "text"}}
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendDumps(buf[:0], v)
	}
}
