package jsondata

import (
	"unicode/utf16"
	"unicode/utf8"
)

// string reads a string; d.data[d.pos] is its opening quote.
func (d *decoder) string() (string, error) {
	d.pos++
	start := d.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := d.data[start:d.pos]
			d.pos++
			return string(s), nil
		case c == '\\' || c < 0x20:
			return d.slowString(start)
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return d.slowString(start)
			}
			d.pos += size
		}
	}
	return "", errEnd
}

// slowString reads a string with escapes or invalid UTF-8 from start, just
// past its opening quote; d.pos is where the fast path stopped.
func (d *decoder) slowString(start int) (string, error) {
	b := append(d.buf[:0], d.data[start:d.pos]...)
	defer func() { d.buf = b[:0] }()
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c < 0x20:
			return "", d.fail("control character in string")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", errEnd
			}
			e := d.data[d.pos]
			d.pos++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					r = d.lowSurrogate(r)
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos--
				return "", d.fail("invalid escape in string")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.pos += size
			b = utf8.AppendRune(b, r) // U+FFFD for invalid bytes
		}
	}
	return "", errEnd
}

// lowSurrogate completes the surrogate pair starting with hi when a \u
// escape of a low surrogate follows, else gives U+FFFD.
func (d *decoder) lowSurrogate(hi rune) rune {
	if d.pos+6 <= len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
		save := d.pos
		d.pos += 2
		if lo, err := d.hex4(); err == nil {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r
			}
		}
		d.pos = save
	}
	return utf8.RuneError
}

// hex4 reads the four hex digits of a \u escape.
func (d *decoder) hex4() (rune, error) {
	if len(d.data)-d.pos < 4 {
		return 0, errEnd
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, d.fail("invalid \\u escape in string")
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, nil
}
