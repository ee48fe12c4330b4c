package pyjson

import (
	"encoding/json"
	"strconv"
)

// Repr returns Python's repr() of the JSON data v: None, True and False,
// ints, floats as repr() writes them (inf and nan included), strings quoted
// by QuoteRepr, lists as [a, b] and dicts as {'k': v} with keys sorted.
// It accepts the same types as Dumps.
func Repr(v any) string {
	var buf [64]byte
	return string(AppendRepr(buf[:0], v))
}

// AppendRepr appends Repr(v) to dst.
func AppendRepr(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "None"...)
	case bool:
		return appendBool(dst, x, "True", "False")
	case string:
		return AppendQuoteRepr(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case float64:
		return AppendFloatRepr(dst, x)
	case float32:
		return AppendFloatRepr(dst, float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.AppendInt(dst, i, 10)
		}
		if f, err := x.Float64(); err == nil {
			return AppendFloatRepr(dst, f)
		}
		return AppendQuoteRepr(dst, string(x))
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendRepr(dst, e)
		}
		return append(dst, ']')
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendQuoteRepr(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendQuoteRepr(dst, k)
			dst = append(dst, ": "...)
			dst = AppendRepr(dst, x[k])
		}
		return append(dst, '}')
	case map[string]string:
		dst = append(dst, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendQuoteRepr(dst, k)
			dst = append(dst, ": "...)
			dst = AppendQuoteRepr(dst, x[k])
		}
		return append(dst, '}')
	}
	return appendReflect(dst, v, AppendRepr)
}
