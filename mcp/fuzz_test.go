package mcp_test

import (
	"regexp"
	"testing"

	"github.com/troupe-dev/troupe/mcp"
)

var sanitized = regexp.MustCompile(`^([a-z0-9]+(_[a-z0-9]+)*)?$`)

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"getWeather", "HTTPServerStatus", "Café", "日本", "a__b", "x\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := mcp.Sanitize(name)
		if len(got) > mcp.MaxToolNameLen || !sanitized.MatchString(got) {
			t.Fatalf("Sanitize(%q) = %q", name, got)
		}
		if again := mcp.Sanitize(got); again != got {
			t.Fatalf("Sanitize is not idempotent: %q, then %q", got, again)
		}
	})
}

func FuzzParseString(f *testing.F) {
	for _, s := range []string{"https://x.dev/mcp#a", "notion#search", "crewai-amp:notion", "http://x", "", "#", "https://#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		s, ps := mcp.Parse(ref, "mcps[0]")
		if ps.Err() != nil {
			return
		}
		if vs := s.Validate("mcps[0]"); vs.Err() != nil {
			t.Fatalf("Parse(%q) accepted a server Validate rejects: %v", ref, vs.Err())
		}
		_ = mcp.ToolName(s.ToolPrefix(), "tool")
	})
}
