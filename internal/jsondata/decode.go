package jsondata

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// maxDepth bounds the nesting of arrays and objects Decode accepts, so
// hostile input cannot exhaust the stack.
const maxDepth = 10000

// Decode parses one JSON value into JSON data: integers that fit become
// int64, every other number float64. It accepts what encoding/json accepts
// (invalid UTF-8 in strings becomes U+FFFD) except numbers beyond the range
// of float64, which JSON data cannot hold.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos < len(d.data) {
		return nil, d.fail("data after the JSON value")
	}
	return v, nil
}

// DecodeMap is Decode for a JSON object; null gives a nil map.
func DecodeMap(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("jsondata: got %s, want an object", kind(v))
}

// A decoder reads JSON text from data, pos being the next byte.
type decoder struct {
	data []byte
	pos  int
	buf  []byte // reused for strings with escapes
}

// errEnd reports text that stops inside a value.
var errEnd = errors.New("jsondata: unexpected end of JSON input")

func (d *decoder) fail(msg string) error {
	if d.pos >= len(d.data) {
		return errEnd
	}
	return fmt.Errorf("jsondata: %s at offset %d", msg, d.pos)
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, errEnd
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.fail("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])))
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		if len(d.data)-d.pos < len(word) && string(d.data[d.pos:]) == word[:len(d.data)-d.pos] {
			return errEnd
		}
		return d.fail("invalid literal, want " + word)
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.fail("nesting too deep")
	}
	d.pos++ // {
	m := make(map[string]any)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		if d.data[d.pos] != '"' {
			return nil, d.fail("object key is not a string")
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		if d.data[d.pos] != ':' {
			return nil, d.fail("missing ':' after object key")
		}
		d.pos++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		done, err := d.next('}', "missing ',' or '}' in object")
		if err != nil {
			return nil, err
		}
		if done {
			return m, nil
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.fail("nesting too deep")
	}
	d.pos++ // [
	list := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return list, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		done, err := d.next(']', "missing ',' or ']' in array")
		if err != nil {
			return nil, err
		}
		if done {
			return list, nil
		}
	}
}

// next reads what follows an element of an object or array: a ',' (more
// follows) or closing (done); anything else is the error msg.
func (d *decoder) next(closing byte, msg string) (done bool, err error) {
	d.space()
	if d.pos >= len(d.data) {
		return false, errEnd
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		d.space()
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.fail(msg)
}

// number reads a number by the JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos >= len(d.data) {
		return nil, errEnd
	}
	switch c := d.data[d.pos]; {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		d.digits()
	default:
		return nil, d.fail("invalid number")
	}
	integer := true
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		integer = false
		d.pos++
		if d.digits() == 0 {
			return nil, d.fail("missing digits after decimal point")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		integer = false
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, d.fail("missing digits in exponent")
		}
	}
	text := d.data[start:d.pos]
	if integer {
		if i, ok := parseInt(text); ok {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("jsondata: number %s at offset %d is out of range", text, start)
	}
	return f, nil
}

func (d *decoder) digits() int {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}

// parseInt parses a valid JSON integer; ok is false when it overflows.
func parseInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	for _, c := range b {
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= math.MaxInt64+1:
		return -int64(u-1) - 1, true
	}
	return 0, false
}

// kind names the JSON type of v for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
