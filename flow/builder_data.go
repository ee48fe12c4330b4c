package flow

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// dataError is a value that is not JSON data, at path (relative to the
// value converted).
type dataError struct {
	path  string
	value any
}

func (e *dataError) Error() string {
	return fmt.Sprintf("a %T is not JSON data; use nil, bool, numbers, string, []any or map[string]any", e.value)
}

// jsonData returns a deep copy of v in the canonical JSON data forms: nil,
// bool, int64, float64, string, []any and map[string]any. Other integer and
// float types, json.Number, and slices, arrays, string-keyed maps and
// pointers of convertible values are converted; anything else is an error.
func jsonData(v any) (any, *dataError) {
	switch v := v.(type) {
	case nil, bool, string, int64, float64:
		return v, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case float32:
		return float64(v), nil
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return f, nil
		}
		return nil, &dataError{value: v}
	case []any:
		if v == nil {
			return nil, nil
		}
		out := make([]any, len(v))
		for i, it := range v {
			c, err := jsonData(it)
			if err != nil {
				return nil, err.under(index("", i))
			}
			out[i] = c
		}
		return out, nil
	case []string:
		if v == nil {
			return nil, nil
		}
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out, nil
	case map[string]any:
		if v == nil {
			return nil, nil
		}
		out := make(map[string]any, len(v))
		for k, it := range v {
			c, err := jsonData(it)
			if err != nil {
				return nil, err.under(k)
			}
			out[k] = c
		}
		return out, nil
	case map[string]string:
		if v == nil {
			return nil, nil
		}
		out := make(map[string]any, len(v))
		for k, s := range v {
			out[k] = s
		}
		return out, nil
	}
	return reflectData(reflect.ValueOf(v))
}

// under prefixes the error's path with a key or an index.
func (e *dataError) under(key string) *dataError {
	e.path = subPath(key, e.path)
	return e
}

func reflectData(rv reflect.Value) (any, *dataError) {
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return jsonData(rv.Elem().Interface())
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return float64(u), nil
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			c, err := jsonData(rv.Index(i).Interface())
			if err != nil {
				return nil, err.under(index("", i))
			}
			out[i] = c
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			k := it.Key().String()
			c, err := jsonData(it.Value().Interface())
			if err != nil {
				return nil, err.under(k)
			}
			out[k] = c
		}
		return out, nil
	}
	return nil, &dataError{value: rv.Interface()}
}
