package jsondata_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

type level int

func TestConvert(t *testing.T) {
	var nilList []any
	var nilInts []int
	n := 3
	stamp := func(v any) (any, bool) {
		if tm, ok := v.(time.Time); ok {
			return tm.Format(time.RFC3339), true
		}
		return nil, false
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		in   any
		o    jsondata.Options
		want any
	}{
		{"int", 3, jsondata.Options{}, int64(3)},
		{"uint64 beyond int64", uint64(math.MaxUint64), jsondata.Options{}, float64(math.MaxUint64)},
		{"float32 widened", float32(0.1), jsondata.Options{}, float64(float32(0.1))},
		{"float32 shortest", float32(0.1), jsondata.Options{ShortFloat32: true}, 0.1},
		{"json integer", json.Number("12"), jsondata.Options{}, int64(12)},
		{"json float", json.Number("1e3"), jsondata.Options{}, 1000.0},
		{"json huge", json.Number("1e400"), jsondata.Options{}, math.Inf(1)},
		{"bad json number kept as text", json.Number("x"), jsondata.Options{Unknown: jsondata.Keep}, "x"},
		{"strings", []string{"a"}, jsondata.Options{}, []any{"a"}},
		{"string map", map[string]string{"a": "b"}, jsondata.Options{}, map[string]any{"a": "b"}},
		{"nested", map[string]any{"l": []any{1, []string{"x"}}}, jsondata.Options{}, map[string]any{"l": []any{int64(1), []any{"x"}}}},
		{"nil list empty", nilList, jsondata.Options{Copy: true}, []any{}},
		{"nil list null", nilList, jsondata.Options{Copy: true, NilIsNull: true}, nil},
		{"reflect ints", []int{1, 2}, jsondata.Options{Reflect: true}, []any{int64(1), int64(2)}},
		{"reflect nil ints", nilInts, jsondata.Options{Reflect: true}, []any{}},
		{"reflect named", level(2), jsondata.Options{Reflect: true}, int64(2)},
		{"reflect pointer", &n, jsondata.Options{Reflect: true}, int64(3)},
		{"reflect map", map[string]float32{"a": 0.5}, jsondata.Options{Reflect: true}, map[string]any{"a": 0.5}},
		{"struct kept", struct{ A int }{1}, jsondata.Options{Unknown: jsondata.Keep}, struct{ A int }{1}},
		{"struct via JSON", struct{ A int }{1}, jsondata.Options{Unknown: jsondata.ViaJSON}, map[string]any{"A": int64(1)}},
		{"other first", []any{when}, jsondata.Options{Other: stamp}, []any{"2026-01-02T03:04:05Z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsondata.Convert(c.in, &c.o)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestConvertShares(t *testing.T) {
	in := map[string]any{"a": []any{int64(1)}}
	out, err := jsondata.Convert(in, &jsondata.Options{})
	require.NoError(t, err)
	out.(map[string]any)["b"] = true
	assert.Contains(t, in, "b", "JSON data is returned as it is")

	in = map[string]any{"a": []any{int64(1)}}
	out, err = jsondata.Convert(in, &jsondata.Options{Copy: true})
	require.NoError(t, err)
	out.(map[string]any)["b"] = true
	assert.NotContains(t, in, "b", "Copy copies")
}

func TestConvertErrors(t *testing.T) {
	_, err := jsondata.Convert(map[string]any{"a": []any{1, map[string]any{"b": make(chan int)}}}, &jsondata.Options{Reflect: true})
	te, ok := errors.AsType[*jsondata.TypeError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "a[1].b", te.Path)
	assert.IsType(t, make(chan int), te.Value)
	assert.EqualError(t, err, `jsondata: a chan int is not JSON data (at key "a[1].b")`)

	_, err = jsondata.Convert(json.Number("x"), &jsondata.Options{})
	require.Error(t, err)
	_, err = jsondata.Convert(func() {}, &jsondata.Options{Unknown: jsondata.ViaJSON})
	require.ErrorContains(t, err, "jsondata: func()")
}

func BenchmarkConvertShared(b *testing.B) {
	b.ReportAllocs()
	o := jsondata.Options{}
	for b.Loop() {
		if _, err := jsondata.Convert(state, &o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvertCopy(b *testing.B) {
	b.ReportAllocs()
	o := jsondata.Options{Copy: true}
	for b.Loop() {
		if _, err := jsondata.Convert(state, &o); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFinite(t *testing.T) {
	require.NoError(t, jsondata.Finite(map[string]any{"a": []any{1.5, int64(2), "x", nil}}))
	err := jsondata.Finite(map[string]any{"a": []any{1.5, math.NaN()}})
	assert.EqualError(t, err, `NaN is not a JSON number (at index 1) (at key "a")`)
	assert.EqualError(t, jsondata.Finite(math.Inf(-1)), "-Inf is not a JSON number")
}
