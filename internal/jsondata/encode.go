package jsondata

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Marshal returns v as compact JSON text with object keys sorted; nil maps
// and slices are null, as with encoding/json. Floats
// always carry a fraction or an exponent ("2.0", "1e+21") so Decode reads
// them back as float64. NaN and infinities are errors: JSON cannot hold them.
//
// Besides JSON data, v may hold the common Go spellings of it (int, int32,
// uint8, float32, []string, map[string]string, json.Number, ...); any other
// type goes through encoding/json.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, 256), v)
}

// Append is Marshal writing to the end of dst.
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		return appendFloat(dst, x)
	case float32:
		return appendFloat(dst, float64(x))
	case []any:
		return appendList(dst, x, Append)
	case map[string]any:
		return appendObject(dst, x, Append)
	case []string:
		return appendList(dst, x, appendText)
	case map[string]string:
		return appendObject(dst, x, appendText)
	case json.Number:
		v, err := Decode([]byte(x))
		if err != nil {
			return dst, fmt.Errorf("jsondata: invalid number %q", string(x))
		}
		return Append(dst, v)
	}
	if c, ok := small(v); ok {
		return Append(dst, c)
	}
	return appendOther(dst, v)
}

// appendList writes a list, each item by elem; a nil list is null.
func appendList[T any](dst []byte, items []T, elem func([]byte, T) ([]byte, error)) ([]byte, error) {
	if items == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elem(dst, it); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendObject writes an object with its keys sorted, each value by elem;
// a nil map is null.
func appendObject[T any](dst []byte, m map[string]T, elem func([]byte, T) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	keys := SortedKeys(m)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = elem(dst, m[k]); err != nil {
			return dst, fmt.Errorf("%w (at key %q)", err, k)
		}
	}
	return append(dst, '}'), nil
}

// appendText is AppendString in the shape appendList and appendObject take.
func appendText(dst []byte, s string) ([]byte, error) { return AppendString(dst, s), nil }

// SortedKeys returns the keys of m in ascending byte order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendFloat writes f so that it reads back as a float: integral values
// below 1e21 get ".0", larger and tiny ones use an exponent.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("jsondata: %v is not a JSON number", f)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.AppendFloat(dst, f, 'e', -1, 64), nil
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst, nil
		}
	}
	return append(dst, ".0"...), nil
}

// appendOther writes a value of a type Append has no case for through
// encoding/json, then through Decode so the output keeps its conventions.
func appendOther(dst []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("jsondata: %T: %w", v, err)
	}
	d, err := Decode(raw)
	if err != nil {
		return dst, fmt.Errorf("jsondata: %T: %w", v, err)
	}
	return Append(dst, d)
}
