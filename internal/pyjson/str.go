package pyjson

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way json.dumps(s,
// ensure_ascii=False) writes it (see jsondata.Python).
func AppendString(dst []byte, s string) []byte {
	return jsondata.AppendQuoted(dst, s, jsondata.Python)
}

// QuoteRepr returns Python's repr() of the string s: single quotes unless s
// contains a single quote and no double quote, backslash escapes for the
// quote, the backslash, \t, \n and \r, \xHH, \uHHHH or \UHHHHHHHH for other
// unprintable characters, and printable non-ASCII kept as is.
func QuoteRepr(s string) string {
	return string(AppendQuoteRepr(make([]byte, 0, len(s)+2), s))
}

// AppendQuoteRepr appends QuoteRepr(s) to dst.
func AppendQuoteRepr(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == quote || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// Not UTF-8: show the byte, as Python shows an undecodable byte.
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case unicode.IsPrint(r):
			dst = append(dst, s[i:i+size]...)
		case r <= 0xff:
			dst = append(dst, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r <= 0xffff:
			dst = append(dst, '\\', 'u')
			dst = appendHex(dst, uint32(r), 4)
		default:
			dst = append(dst, '\\', 'U')
			dst = appendHex(dst, uint32(r), 8)
		}
		i += size
	}
	return append(dst, quote)
}

func appendHex(dst []byte, v uint32, width int) []byte {
	for shift := (width - 1) * 4; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(v>>uint(shift))&0xf])
	}
	return dst
}
