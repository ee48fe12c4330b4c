package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
)

// canonical reports whether v is already JSON data in canonical form, so
// that callers can skip a copy. It does not allocate.
func canonical(v any) bool {
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, e := range v {
			if !canonical(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !canonical(e) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

// normalize returns v in canonical form, copying only where needed. Values
// that cannot be JSON data (structs, channels, ...) are returned unchanged;
// validation then reports them.
func normalize(v any) any {
	if canonical(v) {
		return v
	}
	return toCanonical(v)
}

// toCanonical converts v to canonical JSON data. Containers are always
// copied; scalars are converted.
func toCanonical(v any) any {
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
		return v
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint:
		return uintValue(uint64(v))
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		return uintValue(v)
	case float32:
		// Go through the shortest decimal form so 0.1 stays 0.1.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
		return f
	case json.Number:
		return numberValue(string(v))
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = toCanonical(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = toCanonical(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = e
		}
		return out
	}
	return reflectCanonical(v)
}

// reflectCanonical handles the rarer container shapes ([]int, []map[string]any,
// map[string]int, named types, ...) through reflection.
func reflectCanonical(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return rv.Bool()
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintValue(rv.Uint())
	case reflect.Float32:
		return toCanonical(float32(rv.Float()))
	case reflect.Float64:
		return rv.Float()
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = toCanonical(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return v
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = toCanonical(iter.Value().Interface())
		}
		return out
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return toCanonical(rv.Elem().Interface())
	}
	return v
}

func uintValue(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

// numberValue turns JSON number text into int64 when it is written as an
// integer that fits, else float64 (as Python's json module does, minus
// arbitrary precision).
func numberValue(s string) any {
	if isIntegerText(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return s
	}
	return f
}

func isIntegerText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// deepCopy copies canonical JSON data so that callers may mutate the result.
func deepCopy(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

// decodeJSON parses one JSON value into canonical JSON data: integers
// without a fraction or exponent become int64, other numbers float64.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return numbersToCanonical(v), nil
}

// numbersToCanonical converts json.Number leaves in place; the containers
// come fresh from the decoder, so mutating them is safe.
func numbersToCanonical(v any) any {
	switch v := v.(type) {
	case json.Number:
		return numberValue(string(v))
	case []any:
		for i, e := range v {
			v[i] = numbersToCanonical(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = numbersToCanonical(e)
		}
	}
	return v
}
