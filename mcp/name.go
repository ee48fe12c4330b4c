package mcp

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/troupe-dev/troupe/internal/toolname"
)

// MaxToolNameLen is the longest tool name providers accept (OpenAI,
// Bedrock); longer names are shortened with a hash, as CrewAI does.
const MaxToolNameLen = toolname.MaxLen

// Sanitize turns a name into the form CrewAI gives tool names: Unicode
// compatibility-decomposed and stripped to ASCII, camelCase split with
// underscores (HTTPServer becomes http_server), lower-cased, quotes
// deleted, every other run of characters but letters and digits made one
// underscore, and no underscore at either end. A result longer than 64
// characters keeps its first 55 (no trailing underscore) and gets "_" and
// the first 8 hex digits of the SHA-256 of the whole sanitized name.
func Sanitize(name string) string { return toolname.Sanitize(name) }

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
