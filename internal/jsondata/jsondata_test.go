package jsondata_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

func TestMarshalText(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, `null`},
		{"bool", true, `true`},
		{"int", int64(-42), `-42`},
		{"integral float", 2.0, `2.0`},
		{"negative float", -3.0, `-3.0`},
		{"zero float", 0.0, `0.0`},
		{"fraction", 2.5, `2.5`},
		{"large integral float", 1e20, `100000000000000000000.0`},
		{"huge float", 1e21, `1e+21`},
		{"tiny float", 1e-7, `1e-07`},
		{"string escapes", "a\"b\\c\n\t\x01", `"a\"b\\c\n\t\u0001"`},
		{"unicode kept", "héllo ✓", `"héllo ✓"`},
		{"line separator", "a\u2028b", `"a\u2028b"`},
		{"invalid utf8", "a\xffb", `"a\ufffdb"`},
		{"list", []any{int64(1), 1.5, "x", nil}, `[1,1.5,"x",null]`},
		{"sorted keys", map[string]any{"b": int64(1), "a": map[string]any{"d": false, "c": []any{}}}, `{"a":{"c":[],"d":false},"b":1}`},
		{"go int", 7, `7`},
		{"go uint8", uint8(7), `7`},
		{"go float32", float32(0.5), `0.5`},
		{"strings", []string{"x", "y"}, `["x","y"]`},
		{"string map", map[string]string{"b": "2", "a": "1"}, `{"a":"1","b":"2"}`},
		{"json number", json.Number("3"), `3`},
		{"nil map", map[string]any(nil), `null`},
		{"nil list", []any(nil), `null`},
		{"nil strings", []string(nil), `null`},
		{"empty strings", []string{}, `[]`},
		{"struct", struct {
			A int `json:"a"`
		}{A: 1}, `{"a":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsondata.Marshal(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, string(got))
		})
	}
}

func TestMarshalRejects(t *testing.T) {
	cases := []struct {
		name string
		in   any
	}{
		{"NaN", math.NaN()},
		{"infinity", math.Inf(1)},
		{"nested NaN", map[string]any{"a": []any{math.Inf(-1)}}},
		{"channel", make(chan int)},
		{"bad number", json.Number("x")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := jsondata.Marshal(c.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "jsondata:")
		})
	}
}

func TestRoundTripKeepsTypes(t *testing.T) {
	cases := []struct {
		name string
		in   any
	}{
		{"int", int64(1)},
		{"float one", 1.0},
		{"max int", int64(math.MaxInt64)},
		{"min int", int64(math.MinInt64)},
		{"big float", 1e300},
		{"smallest float", 5e-324},
		{"float fraction", 0.1},
		{"float near int range", 9.3e18},
		{"nested", map[string]any{
			"n": nil, "i": int64(3), "f": 3.0, "s": "s", "b": false,
			"l": []any{int64(1), 1.0, []any{}, map[string]any{}},
			"m": map[string]any{"deep": map[string]any{"x": -0.25}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := jsondata.Marshal(c.in)
			require.NoError(t, err)
			got, err := jsondata.Decode(raw)
			require.NoError(t, err)
			assert.Equal(t, c.in, got)
		})
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want any
	}{
		{"integer", `12`, int64(12)},
		{"float", `12.0`, 12.0},
		{"exponent", `1e2`, 100.0},
		{"beyond int64", `99999999999999999999`, 99999999999999999999.0},
		{"nested numbers", `{"a":[1,2.5,{"b":3}]}`, map[string]any{"a": []any{int64(1), 2.5, map[string]any{"b": int64(3)}}}},
		{"space around", " null \n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsondata.Decode([]byte(c.in))
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `1 2`, `{"a":1}x`, `nul`} {
		t.Run(in, func(t *testing.T) {
			_, err := jsondata.Decode([]byte(in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "jsondata:")
		})
	}
}

func TestDecodeMap(t *testing.T) {
	m, err := jsondata.DecodeMap([]byte(`{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(1)}, m)

	m, err = jsondata.DecodeMap([]byte(`null`))
	require.NoError(t, err)
	assert.Nil(t, m)

	_, err = jsondata.DecodeMap([]byte(`[1]`))
	assert.ErrorContains(t, err, "want an object")
}

func TestCloneConverts(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"int", 3, int64(3)},
		{"int32", int32(-3), int64(-3)},
		{"uint64 beyond int64", uint64(math.MaxUint64), float64(math.MaxUint64)},
		{"float32", float32(1.5), 1.5},
		{"strings", []string{"a"}, []any{"a"}},
		{"string map", map[string]string{"a": "b"}, map[string]any{"a": "b"}},
		{"nested go values", map[string]any{"l": []any{1, []string{"x"}}}, map[string]any{"l": []any{int64(1), []any{"x"}}}},
		{"json number", json.Number("2.0"), 2.0},
		{"struct", struct{ A float64 }{A: 1.5}, map[string]any{"A": 1.5}},
		{"NaN kept", math.Inf(1), math.Inf(1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsondata.Clone(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestCloneSharesNothing(t *testing.T) {
	in := map[string]any{"list": []any{map[string]any{"k": int64(1)}}, "m": map[string]any{"x": "y"}}
	out, err := jsondata.CloneMap(in)
	require.NoError(t, err)
	require.Equal(t, in, out)

	in["list"].([]any)[0].(map[string]any)["k"] = int64(2)
	in["m"].(map[string]any)["x"] = "changed"
	in["new"] = true
	assert.Equal(t, map[string]any{"list": []any{map[string]any{"k": int64(1)}}, "m": map[string]any{"x": "y"}}, out)
}

func TestCloneErrors(t *testing.T) {
	_, err := jsondata.Clone(map[string]any{"f": func() {}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `at key "f"`)

	m, err := jsondata.CloneMap(nil)
	require.NoError(t, err)
	assert.Nil(t, m)
}

func TestAppendQuotedSpellings(t *testing.T) {
	cases := []struct {
		name, in           string
		json, yaml, python string
	}{
		{"plain", "abc", `"abc"`, `"abc"`, `"abc"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"short escapes", "\n\r\t", `"\n\r\t"`, `"\n\r\t"`, `"\n\r\t"`},
		{"backspace and form feed", "\b\f", `"\u0008\u000c"`, `"\u0008\u000c"`, `"\b\f"`},
		{"other control", "\x01", `"\u0001"`, `"\u0001"`, `"\u0001"`},
		{"DEL", "\x7f", "\"\x7f\"", `"\u007f"`, "\"\x7f\""},
		{"C1 control", "\u0085", "\"\u0085\"", `"\u0085"`, "\"\u0085\""},
		{"BOM and non-character", "\ufeff\uffff", "\"\ufeff\uffff\"", `"\ufeff\uffff"`, "\"\ufeff\uffff\""},
		{"line separator", "\u2028\u2029", `"\u2028\u2029"`, "\"\u2028\u2029\"", "\"\u2028\u2029\""},
		{"non-ASCII kept", "é日", `"é日"`, `"é日"`, `"é日"`},
		{"invalid UTF-8", "a\xffb", `"a\ufffdb"`, `"a\ufffdb"`, "\"a\xffb\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.json, string(jsondata.AppendQuoted(nil, c.in, jsondata.JSON)))
			assert.Equal(t, c.json, string(jsondata.AppendString(nil, c.in)))
			assert.Equal(t, c.yaml, string(jsondata.AppendQuoted(nil, c.in, jsondata.YAML)))
			assert.Equal(t, c.python, string(jsondata.AppendQuoted(nil, c.in, jsondata.Python)))
		})
	}
}
