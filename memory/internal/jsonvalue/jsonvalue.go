// Package jsonvalue converts Go values into Troupe's canonical JSON data (nil,
// bool, int64, float64, string, []any, map[string]any) and encodes that data
// as JSON text without losing the difference between 1 and 1.0.
//
// encoding/json writes the float 1.0 as "1" and reads every number back as a
// float64; record metadata must survive a round trip through a store with
// its integers and floats intact, so floats are written with a decimal point
// and numbers without one are read back as int64.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Canonical returns v as canonical JSON data, copying containers so the
// result shares nothing mutable with v. It accepts the common Go spellings
// of the same data (int, int32, uint8, float32, []string, map[string]string,
// ...) and rejects what JSON cannot hold (NaN, channels, funcs, ...).
func Canonical(v any) (any, error) { return canonical(v, 0) }

// maxDepth bounds nesting, which also stops cycles (a map holding itself).
const maxDepth = 512

var errTooDeep = fmt.Errorf("jsonvalue: nested deeper than %d levels (a cycle?)", maxDepth)

// at adds the place of a nested error, except to errTooDeep, which would
// otherwise carry maxDepth places.
func at(place string, err error) error {
	if errors.Is(err, errTooDeep) {
		return err
	}
	return fmt.Errorf("jsonvalue: %s: %w", place, err)
}

func canonical(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool, string, int64:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("jsonvalue: %v is not a JSON number", x)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float32:
		return canonical(float64(x), depth)
	case json.Number:
		return number(string(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := canonical(e, depth+1)
			if err != nil {
				return nil, at(fmt.Sprintf("[%d]", i), err)
			}
			out[i] = c
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := canonical(e, depth+1)
			if err != nil {
				return nil, at(strconv.Quote(k), err)
			}
			out[k] = c
		}
		return out, nil
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out, nil
	}
	return reflected(reflect.ValueOf(v), depth)
}

// reflected handles the less common shapes: other integer and float kinds,
// typed slices and string-keyed maps.
func reflected(rv reflect.Value, depth int) (any, error) {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("jsonvalue: %d overflows int64", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return canonical(rv.Float(), depth)
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return canonical(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len()) // a nil slice becomes [], as []any(nil) does
		for i := range out {
			c, err := canonical(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, at(fmt.Sprintf("[%d]", i), err)
			}
			out[i] = c
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("jsonvalue: map key type %s is not string", rv.Type().Key())
		}
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			c, err := canonical(it.Value().Interface(), depth+1)
			if err != nil {
				return nil, at(strconv.Quote(it.Key().String()), err)
			}
			out[it.Key().String()] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("jsonvalue: %s is not JSON data", rv.Type())
}

// CanonicalMap is Canonical for a metadata map; nil stays nil.
func CanonicalMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	c, err := Canonical(m)
	if err != nil {
		return nil, err
	}
	return c.(map[string]any), nil
}

// Marshal encodes canonical data as compact JSON with sorted object keys;
// floats always carry a decimal point or an exponent.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func write(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("jsonvalue: %v is not a JSON number", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		buf.WriteString(s)
		if !strings.ContainsAny(s, ".eE") {
			buf.WriteString(".0")
		}
	case string:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("jsonvalue: %w", err)
		}
		buf.Write(b)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := write(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		c, err := Canonical(v)
		if err != nil {
			return err
		}
		return write(buf, c)
	}
	return nil
}

// Unmarshal decodes JSON text into canonical data: numbers written without
// a fraction or exponent become int64 (float64 when out of range), all
// others float64.
func Unmarshal(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("jsonvalue: %w", err)
	}
	if dec.More() {
		return nil, errors.New("jsonvalue: trailing data after JSON value")
	}
	return Canonical(v)
}

// UnmarshalMap is Unmarshal for a JSON object; "null" and empty input give nil.
func UnmarshalMap(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	v, err := Unmarshal(data)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("jsonvalue: want a JSON object, got %T", v)
}

func number(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("jsonvalue: number %q: %w", s, err)
	}
	return f, nil
}
