package jsondata

import "unicode/utf8"

// A Spelling says how [AppendQuoted] escapes a string. Each writes valid
// JSON; they differ in what else the text must suit.
type Spelling uint8

const (
	// JSON is the spelling of [Marshal]: '"', '\\' and control characters
	// escaped (\n, \r, \t, else \u00XX), invalid UTF-8 written as U+FFFD,
	// and U+2028 and U+2029 escaped so that the text is also JavaScript.
	JSON Spelling = iota
	// YAML is JSON that a YAML parser reads back unchanged: besides what
	// JSON requires it escapes DEL, the C1 controls, the BOM and the
	// non-characters U+FFFE and U+FFFF, but not U+2028 and U+2029.
	YAML
	// Python is how Python's json.dumps(s, ensure_ascii=False) writes s:
	// '"', '\\' and control characters escaped (\n, \r, \t, \b, \f, else
	// \u00XX); every other byte, invalid UTF-8 included, is kept.
	Python
)

const hex = "0123456789abcdef"

// AppendString writes s as a JSON string in the [JSON] spelling.
func AppendString(dst []byte, s string) []byte { return AppendQuoted(dst, s, JSON) }

// AppendQuoted writes s as a JSON string in spelling sp.
func AppendQuoted(dst []byte, s string, sp Spelling) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || sp != YAML) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c, sp)
			i++
			start = i
			continue
		}
		if sp == Python {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size == 1
		if !invalid && !escapes(r, sp) {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		if invalid {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscape writes the escape of the ASCII byte c.
func appendEscape(dst []byte, c byte, sp Spelling) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		if sp == Python {
			return append(dst, '\\', 'b')
		}
	case '\f':
		if sp == Python {
			return append(dst, '\\', 'f')
		}
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// escapes reports whether the non-ASCII rune r is escaped in spelling sp.
func escapes(r rune, sp Spelling) bool {
	if sp == YAML {
		return r >= 0x80 && r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff
	}
	return r == '\u2028' || r == '\u2029'
}
