package jsonvalue

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTripKeepsIntegersAndFloatsApart(t *testing.T) {
	in := map[string]any{
		"i": int64(1), "f": 1.0, "big": int64(math.MaxInt64), "neg": -2.5e-9, "s": "é\"\n", "b": false, "n": nil,
		"l": []any{int64(1), 1.0, []any{}}, "m": map[string]any{"z": int64(0), "a": map[string]any{}},
	}
	data, err := Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, `{"b":false,"big":9223372036854775807,"f":1.0,"i":1,"l":[1,1.0,[]],"m":{"a":{},"z":0},"n":null,"neg":-2.5e-09,"s":"é\"\n"}`, string(data))
	out, err := UnmarshalMap(data)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

func TestCanonical(t *testing.T) {
	type label string
	cases := []struct {
		in   any
		want any
	}{
		{int(3), int64(3)},
		{int32(-3), int64(-3)},
		{uint8(7), int64(7)},
		{float32(0.5), 0.5},
		{[]string{"a"}, []any{"a"}},
		{map[string]string{"k": "v"}, map[string]any{"k": "v"}},
		{[]int{1, 2}, []any{int64(1), int64(2)}},
		{map[string]int{"k": 1}, map[string]any{"k": int64(1)}},
		{label("x"), "x"},
		{[]any(nil), []any{}},
	}
	for _, c := range cases {
		got, err := Canonical(c.in)
		require.NoError(t, err, "%#v", c.in)
		assert.Equal(t, c.want, got, "%#v", c.in)
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), make(chan int), map[int]string{1: "x"}, uint64(math.MaxUint64), []any{func() {}}} {
		_, err := Canonical(bad)
		assert.Error(t, err, "%#v", bad)
	}
}

func TestUnmarshalRejects(t *testing.T) {
	for _, in := range []string{`{`, `[1]`, `{} {}`, `"x"`} {
		_, err := UnmarshalMap([]byte(in))
		assert.Error(t, err, in)
	}
	m, err := UnmarshalMap([]byte(" null "))
	require.NoError(t, err)
	assert.Nil(t, m)
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": 1.0, "c": [1e300, -0.0, "x"]}`, `[]`, `null`, `123456789012345678901234567890`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := Unmarshal([]byte(in))
		if err != nil {
			return
		}
		data, err := Marshal(v)
		require.NoError(t, err)
		again, err := Unmarshal(data)
		require.NoError(t, err)
		assert.Equal(t, v, again, "%s -> %s", in, data)
	})
}

func TestCanonicalStopsCycles(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	_, err := Canonical(m)
	assert.ErrorContains(t, err, "nested deeper")
}
