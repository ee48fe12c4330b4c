package jsondata

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Options say how [Convert] turns a Go value into JSON data. The zero value
// shares data it need not copy, converts only the common Go spellings of
// JSON data and fails on anything else.
type Options struct {
	// Copy copies every slice and map. Without it, a value that already is
	// JSON data is returned as it is, without allocating.
	Copy bool
	// NilIsNull turns a nil slice or map into nil (JSON null); without it,
	// it becomes an empty []any or map[string]any.
	NilIsNull bool
	// ShortFloat32 converts a float32 through its shortest decimal
	// spelling, so float32(0.1) becomes 0.1 rather than 0.10000000149011612.
	ShortFloat32 bool
	// Other is asked first about a value of a type the common spellings do
	// not cover (a struct, a time.Time, a named type, ...); ok false leaves
	// it to Reflect and Unknown. It also sees the elements of containers.
	Other func(v any) (out any, ok bool)
	// Reflect converts other slices, arrays, string-keyed maps, pointers
	// and named bool, number and string types by reflection (a []byte
	// becomes a list of numbers unless Other keeps it).
	Reflect bool
	// Unknown says what becomes of a value no rule converts.
	Unknown Unknown
}

// Unknown says what [Convert] does with a value no rule converts.
type Unknown uint8

const (
	// Fail makes Convert return a [*TypeError].
	Fail Unknown = iota
	// Keep returns the value as it is (a json.Number that is not a number
	// becomes its text).
	Keep
	// ViaJSON converts the value through encoding/json, then [Decode], so
	// a struct becomes a map of its JSON fields.
	ViaJSON
)

// A TypeError is a value [Convert] cannot turn into JSON data.
type TypeError struct {
	// Path locates the value within the one converted, such as
	// "a.b[2]"; it is empty for the value itself.
	Path string
	// Value is the value itself.
	Value any
	// Err is the reason given by encoding/json, if any.
	Err error
}

// Error implements error.
func (e *TypeError) Error() string {
	msg := fmt.Sprintf("jsondata: a %T is not JSON data", e.Value)
	if e.Err != nil {
		msg = fmt.Sprintf("jsondata: %T: %v", e.Value, e.Err)
	}
	if e.Path != "" {
		msg += fmt.Sprintf(" (at key %q)", e.Path)
	}
	return msg
}

// Unwrap returns the reason given by encoding/json, if any.
func (e *TypeError) Unwrap() error { return e.Err }

// under prefixes the error's path with a key, or an index written "[i]".
func (e *TypeError) under(key string) *TypeError {
	switch {
	case e.Path == "":
		e.Path = key
	case e.Path[0] == '[':
		e.Path = key + e.Path
	default:
		e.Path = key + "." + e.Path
	}
	return e
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// Convert returns v as JSON data (nil, bool, int64, float64, string, []any,
// map[string]any) following o. Besides JSON data it always converts the
// other Go integer and float types (a uint64 beyond int64 becomes a
// float64), json.Number (int64 when it is an integer that fits, else
// float64), []string and map[string]string; o says what happens to the
// rest. The error is a [*TypeError].
func Convert(v any, o *Options) (any, error) {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return v, nil
	}
	return convertTop(v, o)
}

// convertTop is Convert past its scalar cases, kept apart so that those
// inline into callers.
func convertTop(v any, o *Options) (any, error) {
	if !o.Copy && IsData(v) {
		return v, nil
	}
	out, err := convert(v, o)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IsData reports whether v holds only JSON data, so that [Convert] without
// Copy would return it as it is. It does not allocate.
func IsData(v any) bool {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, it := range x {
			if !IsData(it) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, it := range x {
			if !IsData(it) {
				return false
			}
		}
		return true
	}
	return false
}

func convert(v any, o *Options) (any, *TypeError) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return v, nil
	case float32:
		if o.ShortFloat32 {
			f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
			return f, nil
		}
		return float64(x), nil
	case json.Number:
		if n, ok := ParseNumber(string(x)); ok {
			return n, nil
		}
		return unknown(v, o)
	case []any:
		if x == nil && o.NilIsNull {
			return nil, nil
		}
		if !o.Copy && IsData(x) {
			return v, nil
		}
		out := make([]any, len(x))
		for i, it := range x {
			c, err := convert(it, o)
			if err != nil {
				return nil, err.under(index(i))
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		if x == nil && o.NilIsNull {
			return nil, nil
		}
		if !o.Copy && IsData(x) {
			return v, nil
		}
		out := make(map[string]any, len(x))
		for k, it := range x {
			c, err := convert(it, o)
			if err != nil {
				return nil, err.under(k)
			}
			out[k] = c
		}
		return out, nil
	case []string:
		if x == nil && o.NilIsNull {
			return nil, nil
		}
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	case map[string]string:
		if x == nil && o.NilIsNull {
			return nil, nil
		}
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out, nil
	}
	if c, ok := small(v); ok {
		return c, nil
	}
	if o.Other != nil {
		if c, ok := o.Other(v); ok {
			return c, nil
		}
	}
	if o.Reflect {
		if c, ok, err := convertReflect(reflect.ValueOf(v), o); ok || err != nil {
			return c, err
		}
	}
	return unknown(v, o)
}

// unknown applies o.Unknown to v.
func unknown(v any, o *Options) (any, *TypeError) {
	switch o.Unknown {
	case Keep:
		if n, ok := v.(json.Number); ok {
			return string(n), nil
		}
		return v, nil
	case ViaJSON:
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &TypeError{Value: v, Err: err}
		}
		d, err := Decode(raw)
		if err != nil {
			return nil, &TypeError{Value: v, Err: err}
		}
		return d, nil
	}
	return nil, &TypeError{Value: v}
}

// convertReflect converts the kinds Options.Reflect names; ok is false for
// the others.
func convertReflect(rv reflect.Value, o *Options) (_ any, ok bool, _ *TypeError) {
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, true, nil
		}
		c, err := convert(rv.Elem().Interface(), o)
		return c, true, err
	case reflect.Bool:
		return rv.Bool(), true, nil
	case reflect.String:
		return rv.String(), true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return unsigned(rv.Uint()), true, nil
	case reflect.Float32:
		c, err := convert(float32(rv.Float()), o)
		return c, true, err
	case reflect.Float64:
		return rv.Float(), true, nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() && o.NilIsNull {
			return nil, true, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			c, err := convert(rv.Index(i).Interface(), o)
			if err != nil {
				return nil, true, err.under(index(i))
			}
			out[i] = c
		}
		return out, true, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false, nil
		}
		if rv.IsNil() && o.NilIsNull {
			return nil, true, nil
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k := it.Key().String()
			c, err := convert(it.Value().Interface(), o)
			if err != nil {
				return nil, true, err.under(k)
			}
			out[k] = c
		}
		return out, true, nil
	}
	return nil, false, nil
}

// ParseNumber reads JSON number text (or Go's spelling of a number) as
// int64 when it is written as an integer that fits, else as float64; a
// float beyond float64's range becomes an infinity. ok is false when s is
// not a number.
func ParseNumber(s string) (any, bool) {
	if isIntegerText(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return nil, false
		}
	}
	return f, true
}

func isIntegerText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', 'e', 'E':
			return false
		}
	}
	return true
}

// small converts the Go number types other than int64 and float64 (and
// float32, which Options govern).
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
	}
	return nil, false
}

func unsigned(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}
