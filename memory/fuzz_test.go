package memory

import (
	"strings"
	"testing"
)

func FuzzCleanScope(f *testing.F) {
	for _, s := range []string{"", "/", "a/b", "//a/./../b/", " / x /", "/a%_/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CleanScope(s)
		if CleanScope(c) != c {
			t.Fatalf("CleanScope not idempotent: %q -> %q -> %q", s, c, CleanScope(c))
		}
		if !strings.HasPrefix(c, "/") || !InScope(c, "/") || !InScope(JoinScope("/root", s), "/root") {
			t.Fatalf("scope %q escapes: %q", s, c)
		}
	})
}

func FuzzModelReplies(f *testing.F) {
	for _, s := range []string{`{"scope": "/a", "categories": ["x"], "importance": 2}`, `{"actions": [{"note": 1, "action": "update", "content": "c"}], "insert": false}`, "```json\n{}\n```", "{", "}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		if fl, err := readFiling(reply); err == nil && fl.Importance != nil && (*fl.Importance < 0 || *fl.Importance > 1) {
			t.Fatalf("importance %v not clamped", *fl.Importance)
		}
		c, _ := readPlan(reply, 3)
		for n := range c.updates {
			if n < 0 || n >= 3 {
				t.Fatalf("plan touches note %d", n)
			}
		}
		for _, n := range c.deletes {
			if n < 0 || n >= 3 {
				t.Fatalf("plan touches note %d", n)
			}
		}
	})
}
