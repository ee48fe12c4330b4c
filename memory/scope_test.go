package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/memory"
)

func TestCleanScope(t *testing.T) {
	cases := map[string]string{
		"":                "/",
		"/":               "/",
		"flow/a":          "/flow/a",
		"/flow/a/":        "/flow/a",
		"//flow///a":      "/flow/a",
		"/flow/./a/../b":  "/flow/a/b",
		"/../..":          "/",
		" /flow / a b /":  "/flow/a b",
		"/flow/Trip Plan": "/flow/Trip Plan",
	}
	for in, want := range cases {
		assert.Equal(t, want, memory.CleanScope(in), "%q", in)
	}
}

func TestJoinScope(t *testing.T) {
	cases := []struct{ root, scope, want string }{
		{"/", "agent/x", "/agent/x"},
		{"/flow/a", "", "/flow/a"},
		{"/flow/a", "/agent/x", "/flow/a/agent/x"},
		{"/flow/a", "/flow/a/agent/x", "/flow/a/agent/x"},
		{"/flow/a", "/flow/ab", "/flow/a/flow/ab"},
		{"/flow/a", "/../../etc", "/flow/a/etc"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, memory.JoinScope(c.root, c.scope), "%q + %q", c.root, c.scope)
	}
}

func TestInScope(t *testing.T) {
	cases := []struct {
		path, root string
		want       bool
	}{
		{"/a", "/", true},
		{"/a", "/a", true},
		{"/a/b", "/a", true},
		{"/ab", "/a", false},
		{"/", "/a", false},
		{"/a", "/a/b", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, memory.InScope(c.path, c.root), "%q in %q", c.path, c.root)
	}
}

func TestFlowScope(t *testing.T) {
	assert.Equal(t, "/flow/trip-planner-v2", memory.FlowScope("  Trip Planner (v2)! "))
	assert.Equal(t, "/flow/café", memory.FlowScope("Café"))
	assert.Equal(t, "/flow/default", memory.FlowScope("???"))
}
