package jsondata

import (
	"fmt"
	"math"
)

// Clone returns a deep copy of v as JSON data: the result shares no map or
// slice with v. The Go spellings Marshal accepts are converted (int to
// int64, []string to []any, ...); other types go through encoding/json.
// Nil slices and maps become nil. NaN and infinities are kept as they are.
func Clone(v any) (any, error) {
	return Convert(v, &cloneOptions)
}

var cloneOptions = Options{Copy: true, NilIsNull: true, Unknown: ViaJSON}

// CloneMap is Clone for an object; a nil map stays nil.
func CloneMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	c, err := Clone(m)
	if err != nil {
		return nil, err
	}
	return c.(map[string]any), nil
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

// Finite reports a NaN or an infinity in JSON data, which JSON text cannot
// hold, saying where it is.
func Finite(v any) error {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%v is not a JSON number", x)
		}
	case []any:
		for i, it := range x {
			if err := Finite(it); err != nil {
				return fmt.Errorf("%w (at index %d)", err, i)
			}
		}
	case map[string]any:
		for k, it := range x {
			if err := Finite(it); err != nil {
				return fmt.Errorf("%w (at key %q)", err, k)
			}
		}
	}
	return nil
}
