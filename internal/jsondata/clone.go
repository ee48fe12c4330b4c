package jsondata

import (
	"encoding/json"
	"fmt"
	"math"
)

// Clone returns a deep copy of v as JSON data: the result shares no map or
// slice with v. The Go spellings Marshal accepts are converted (int to
// int64, []string to []any, ...); other types go through encoding/json.
// NaN and infinities are kept as they are.
func Clone(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int64, float64:
		return v, nil
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			c, err := Clone(it)
			if err != nil {
				return nil, fmt.Errorf("%w (at index %d)", err, i)
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		return CloneMap(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out, nil
	case json.Number:
		v, err := Decode([]byte(x))
		if err != nil {
			return nil, fmt.Errorf("jsondata: invalid number %q", string(x))
		}
		return v, nil
	}
	if c, ok := small(v); ok {
		return c, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("jsondata: %T: %w", v, err)
	}
	d, err := Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("jsondata: %T: %w", v, err)
	}
	return d, nil
}

// CloneMap is Clone for an object; a nil map stays nil.
func CloneMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, it := range m {
		c, err := Clone(it)
		if err != nil {
			return nil, fmt.Errorf("%w (at key %q)", err, k)
		}
		out[k] = c
	}
	return out, nil
}

// small converts the Go number types other than int64 and float64.
func small(v any) (any, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return unsigned(uint64(x)), true
	case uint64:
		return unsigned(x), true
	case float32:
		return float64(x), true
	}
	return nil, false
}

func unsigned(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

// Copy returns a deep copy of JSON data. Unlike Clone it converts nothing
// and cannot fail: values of other types are shared, not copied.
func Copy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = Copy(it)
		}
		return out
	case map[string]any:
		return CopyMap(x)
	}
	return v
}

// CopyMap is Copy for an object; a nil map stays nil.
func CopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, it := range m {
		out[k] = Copy(it)
	}
	return out
}
