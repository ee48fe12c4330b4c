// Package toolname spells tool names the way CrewAI shows them to models,
// for the tools Troupe names after other things (MCP servers' tools, the
// skill loader). It imports nothing of Troupe.
//
// It imports golang.org/x/text only; it must not import anything of
// Troupe.
package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxLen is the longest tool name providers accept (OpenAI, Bedrock);
// longer names are shortened with a hash, as CrewAI does.
const MaxLen = 64

var (
	upperRunThenWord = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	lowerThenUpper   = regexp.MustCompile(`([a-z])([A-Z])`)
	quotes           = regexp.MustCompile(`['"]+`)
	notAlnum         = regexp.MustCompile(`[^a-z0-9]+`)
)

// Sanitize turns a name into the form CrewAI gives tool names: Unicode
// compatibility-decomposed and stripped to ASCII, camelCase split with
// underscores (HTTPServer becomes http_server), lower-cased, quotes
// deleted, every other run of characters but letters and digits made one
// underscore, and no underscore at either end. A result longer than 64
// characters keeps its first 55 (no trailing underscore) and gets "_" and
// the first 8 hex digits of the SHA-256 of the whole sanitized name.
func Sanitize(name string) string {
	s := norm.NFKD.String(name)
	if !isASCII(s) {
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			if s[i] < utf8.RuneSelf {
				b = append(b, s[i])
			}
		}
		s = string(b)
	}
	s = upperRunThenWord.ReplaceAllString(s, "${1}_${2}")
	s = lowerThenUpper.ReplaceAllString(s, "${1}_${2}")
	s = strings.ToLower(s)
	s = quotes.ReplaceAllString(s, "")
	s = notAlnum.ReplaceAllString(s, "_")
	s = strings.Trim(s, "_")
	if len(s) > MaxLen {
		sum := sha256.Sum256([]byte(s))
		suffix := "_" + hex.EncodeToString(sum[:])[:8]
		s = strings.TrimRight(s[:MaxLen-len(suffix)], "_") + suffix
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
