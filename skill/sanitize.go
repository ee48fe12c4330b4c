package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	camelUpperLower = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	camelLowerUpper = regexp.MustCompile(`([a-z])([A-Z])`)
	notNameChars    = regexp.MustCompile(`[^a-z0-9]+`)
)

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// SanitizeToolName spells a tool name as CrewAI shows it to models: ASCII
// (NFKD, other characters dropped), camelCase split with underscores,
// lower case, quotes removed, every other run of characters an underscore,
// and names over 64 characters cut to 55 plus "_" and 8 hex digits of the
// SHA-256 of the whole name. load_skill's name clash rule and
// allowed-tools' matching compare such names.
func SanitizeToolName(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(name) {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		}
	}
	s := camelUpperLower.ReplaceAllString(b.String(), "${1}_${2}")
	s = camelLowerUpper.ReplaceAllString(s, "${1}_${2}")
	s = strings.ToLower(s)
	s = strings.NewReplacer("'", "", `"`, "").Replace(s)
	s = strings.Trim(notNameChars.ReplaceAllString(s, "_"), "_")
	if len(s) > maxToolName {
		sum := sha256.Sum256([]byte(s))
		suffix := "_" + hex.EncodeToString(sum[:])[:8]
		s = strings.TrimRight(s[:maxToolName-len(suffix)], "_") + suffix
	}
	return s
}

// freeToolName returns base, or base_2, base_3, ... : the first that no
// taken tool name claims once sanitized, as CrewAI names its loader.
func freeToolName(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for i := 2; ; i++ {
		if n := base + "_" + itoa(i); !taken[n] {
			return n
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
