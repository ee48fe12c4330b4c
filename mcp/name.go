package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxToolNameLen is the longest tool name providers accept (OpenAI,
// Bedrock); longer names are shortened with a hash, as CrewAI does.
const MaxToolNameLen = 64

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
	if len(s) > MaxToolNameLen {
		sum := sha256.Sum256([]byte(s))
		suffix := "_" + hex.EncodeToString(sum[:])[:8]
		s = strings.TrimRight(s[:MaxToolNameLen-len(suffix)], "_") + suffix
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

// ToolPrefix is what the names of the server's tools start with: the Prefix
// when set, else for stdio the command and its arguments joined by "_",
// for a URL its host (with port) with "." made "_" and its path with "/"
// made "_", and for a slug the slug.
func (s Server) ToolPrefix() string {
	if s.Prefix != nil {
		return *s.Prefix
	}
	switch s.Kind() {
	case TransportStdio:
		return s.Command + "_" + strings.Join(s.Args, "_")
	case TransportAMP:
		return s.Slug
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return s.URL
	}
	host := u.Host
	if u.User != nil {
		host = u.User.String() + "@" + host
	}
	domain := strings.ReplaceAll(host, ".", "_")
	path := strings.Trim(strings.ReplaceAll(u.Path, "/", "_"), "_")
	if path == "" {
		return domain
	}
	return domain + "_" + path
}

// ToolName is the name the model sees for the server tool named tool:
// Sanitize(prefix + "_" + Sanitize(tool)), or Sanitize(tool) without a
// prefix.
func ToolName(prefix, tool string) string {
	if prefix == "" {
		return Sanitize(tool)
	}
	return Sanitize(prefix + "_" + Sanitize(tool))
}

// Names hands out tool names unique among an agent's tools: a name already
// taken gets "_2", "_3" and so on (shortened so that it stays within 64
// characters). The zero value is ready to use.
type Names struct {
	taken map[string]bool
}

// Take marks names as taken (the agent's other tools).
func (n *Names) Take(names ...string) {
	if n.taken == nil {
		n.taken = map[string]bool{}
	}
	for _, name := range names {
		n.taken[name] = true
	}
}

// Unique returns name, or name with the first free suffix, and takes it.
func (n *Names) Unique(name string) string {
	if n.taken == nil {
		n.taken = map[string]bool{}
	}
	out := name
	for i := 2; n.taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > MaxToolNameLen {
			base = strings.TrimRight(base[:MaxToolNameLen-len(suffix)], "_")
		}
		out = base + suffix
	}
	n.taken[out] = true
	return out
}
