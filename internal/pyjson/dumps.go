// Package pyjson writes JSON data the way Python's json.dumps(v, ensure_ascii=False)
// does with its default separators, and writes Python repr() text.
//
// CrewAI renders non-string template values with json.dumps and quotes names in
// its messages with repr(), so Troupe needs both spellings byte for byte:
// ", " and ": " separators, "3.0" and "1e+20" for floats, NaN and Infinity,
// and non-ASCII text kept as is. Go maps have no order, so map keys are
// written sorted.
//
// Start with [Dumps] (dumps.go) and [Repr] (repr.go). Strings are escaped
// by internal/jsondata's Python spelling.
//
// It imports internal/jsondata only; it must not import anything else of
// Troupe.
package pyjson

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// Dumps returns the text Python's json.dumps(v, ensure_ascii=False) produces for
// the JSON data v.
//
// v is nil, bool, int64, float64, string, []any or map[string]any, nested;
// int, int32, float32, []string, map[string]string, json.Number and other
// numeric, slice and string-keyed map types are accepted too. Values of any
// other type are written through encoding/json and then re-read, so they get
// the same spacing.
func Dumps(v any) string {
	var buf [64]byte
	return string(AppendDumps(buf[:0], v))
}

// AppendDumps appends the text of Dumps(v) to dst and returns the extended buffer.
func AppendDumps(dst []byte, v any) []byte { return dumpsSpelling.append(dst, v) }

// spelling is how one of Python's writers spells the parts of a value;
// json.dumps and repr() differ only in these.
type spelling struct {
	null, yes, no string
	quote         func([]byte, string) []byte
	float         func([]byte, float64) []byte
}

var (
	dumpsSpelling = &spelling{null: "null", yes: "true", no: "false", quote: AppendString, float: AppendFloat}
	reprSpelling  = &spelling{null: "None", yes: "True", no: "False", quote: AppendQuoteRepr, float: AppendFloatRepr}
)

// append writes v in sp's spelling.
func (sp *spelling) append(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, sp.null...)
	case bool:
		if x {
			return append(dst, sp.yes...)
		}
		return append(dst, sp.no...)
	case string:
		return sp.quote(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case float64:
		return sp.float(dst, x)
	case float32:
		return sp.float(dst, float64(x))
	case json.Number:
		// The int or float Python would have read.
		if i, err := x.Int64(); err == nil {
			return strconv.AppendInt(dst, i, 10)
		}
		if f, err := x.Float64(); err == nil {
			return sp.float(dst, f)
		}
		return sp.quote(dst, string(x))
	case []any:
		return appendList(dst, x, sp.append)
	case []string:
		return appendList(dst, x, sp.quote)
	case map[string]any:
		return appendDict(dst, x, sp.quote, sp.append)
	case map[string]string:
		return appendDict(dst, x, sp.quote, sp.quote)
	}
	return appendReflect(dst, v, sp.append)
}

// appendReflect handles the types the fast paths above do not name: other
// numeric kinds, slices, arrays, string-keyed maps and pointers. Anything else
// (structs, for example) goes through encoding/json and is re-read as JSON data.
func appendReflect(dst []byte, v any, elem func([]byte, any) []byte) []byte {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return elem(dst, rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return elem(dst, rv.Float())
	case reflect.String:
		return elem(dst, rv.String())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return elem(dst, nil)
		}
		return elem(dst, rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			break // []byte: encoding/json writes base64 text
		}
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return elem(dst, items)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		m := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			m[it.Key().String()] = it.Value().Interface()
		}
		return elem(dst, m)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return elem(dst, nil)
	}
	var decoded any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		return elem(dst, nil)
	}
	return elem(dst, decoded)
}

// AppendFloat appends f as Python's json.dumps writes a float: repr() digits,
// with NaN, Infinity and -Infinity for the non-finite values.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return appendFloatRepr(dst, f)
}

// appendList writes items as a list, each by elem.
func appendList[T any](dst []byte, items []T, elem func([]byte, T) []byte) []byte {
	dst = append(dst, '[')
	for i, e := range items {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = elem(dst, e)
	}
	return append(dst, ']')
}

// appendDict writes m as a dict with keys sorted, keys by key and values
// by elem.
func appendDict[T any](dst []byte, m map[string]T, key func([]byte, string) []byte, elem func([]byte, T) []byte) []byte {
	dst = append(dst, '{')
	for i, k := range jsondata.SortedKeys(m) {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = key(dst, k)
		dst = append(dst, ": "...)
		dst = elem(dst, m[k])
	}
	return append(dst, '}')
}
