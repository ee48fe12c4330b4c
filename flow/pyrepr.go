package flow

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// pyRepr renders JSON data the way Python's repr() does, since CrewAI's
// messages quote values with it: 'text', True, None, {'or': ['a', 'b']}.
func pyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case int:
		b.WriteString(strconv.Itoa(v))
	case float64:
		switch {
		case math.IsInf(v, 1):
			b.WriteString("inf")
		case math.IsInf(v, -1):
			b.WriteString("-inf")
		case math.IsNaN(v):
			b.WriteString("nan")
		case v == math.Trunc(v) && math.Abs(v) < 1e16:
			b.WriteString(strconv.FormatFloat(v, 'f', 1, 64))
		default:
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case string:
		writeStrRepr(b, v)
	case []any:
		b.WriteByte('[')
		for i, it := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, it := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeStrRepr(b, it)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeStrRepr(b, k)
			b.WriteString(": ")
			writeRepr(b, v[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString(fmt.Sprint(v))
	}
}

// writeStrRepr quotes s as Python does: single quotes unless s holds a
// single quote and no double quote.
func writeStrRepr(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)|0x100, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
}
