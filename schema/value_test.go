package schema

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

type label string

func TestNormalizeProducesCanonicalData(t *testing.T) {
	seven := 7
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"int", 3, int64(3)},
		{"uint8", uint8(3), int64(3)},
		{"huge uint64", uint64(math.MaxUint64), float64(math.MaxUint64)},
		{"float32 keeps its decimal", float32(0.1), 0.1},
		{"json.Number int", json.Number("12"), int64(12)},
		{"json.Number float", json.Number("1.5"), 1.5},
		{"named string", label("x"), "x"},
		{"pointer", &seven, int64(7)},
		{"nil slice", []int(nil), []any{}},
		{"int slice", []int{1, 2}, []any{int64(1), int64(2)}},
		{"slice of maps", []map[string]any{{"a": 1}}, []any{obj("a", int64(1))}},
		{"map of ints", map[string]int{"a": 1}, obj("a", int64(1))},
		{"map[string]string", map[string]string{"a": "b"}, obj("a", "b")},
		{"nested any", obj("a", []any{int32(1), map[string]string{"b": "c"}}), obj("a", []any{int64(1), obj("b", "c")})},
		{"struct stays", struct{}{}, struct{}{}},
		{"int keys stay", map[int]int{1: 1}, map[int]int{1: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, normalize(tt.in))
		})
	}
}

func TestNormalizeKeepsCanonicalDataWithoutCopying(t *testing.T) {
	in := obj("a", []any{int64(1), "x"})
	out := normalize(in).(map[string]any)
	out["b"] = true
	assert.Contains(t, in, "b", "canonical input is returned as is")
}

func TestDefaultsAreDeepCopies(t *testing.T) {
	s, err := Compile(obj("properties", obj("tags", obj("default", []any{"a"}))))
	if !assert.NoError(t, err) {
		return
	}
	d := s.Defaults()
	d["tags"].([]any)[0] = "changed"
	assert.Equal(t, obj("tags", []any{"a"}), s.Defaults())

	p, _ := s.Property("tags")
	p.Default.([]any)[0] = "changed"
	assert.Equal(t, []any{"a"}, s.Properties()[0].Default)
}
