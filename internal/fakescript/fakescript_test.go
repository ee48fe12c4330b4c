package fakescript_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/fakescript"
)

// reply is a tiny script entry: a name and times.
type reply struct {
	Name  string
	Times int
}

// read reads "replies:" of data with the Reader, as the doubles do.
func read(t testing.TB, data string) ([]reply, error) {
	root, serr := fakescript.Document([]byte(data), "s.yaml", "replies")
	if serr != nil {
		return nil, serr
	}
	r := fakescript.Reader{Source: "s.yaml"}
	var out []reply
	r.Mapping(root, "", func(key string, k, v *yaml.Node) {
		if key != "replies" {
			r.Fail(k, key, "unknown key; want replies")
			return
		}
		out = fakescript.Entries(&r, v, "replies", func(rp *reply, at, key string, k, v *yaml.Node) {
			switch key {
			case "name":
				rp.Name = r.Str(v, fakescript.Join(at, key))
			case "times":
				rp.Times = r.Times(v, fakescript.Join(at, key))
			case "delay":
				r.Duration(v, fakescript.Join(at, key))
			case "on":
				r.Bool(v, fakescript.Join(at, key))
			default:
				r.Fail(k, fakescript.Join(at, key), "unknown key")
			}
		}, func(rp reply) (reply, error) {
			switch rp.Name {
			case "":
				return rp, fakescript.Field("name", "missing name")
			case "boom":
				return rp, errors.New("cannot compile")
			}
			return rp, nil
		})
	})
	if r.Err != nil {
		return nil, r.Err
	}
	return out, nil
}

func TestReader(t *testing.T) {
	tests := []struct {
		name, src, err string
		want           []reply
	}{
		{"ok", "replies:\n  - {name: a, times: 2}\n  - name: b\n", "", []reply{{"a", 2}, {"b", 0}}},
		{"aliases", "replies:\n  - &r {name: a}\n  - *r\n", "", []reply{{"a", 0}, {"a", 0}}},
		{"empty", "", "fake: s.yaml:1:1: the script is empty; want a mapping with replies", nil},
		{"syntax", "replies: [\n", "fake: s.yaml:1:10: invalid YAML: ", nil},
		{"second document", "replies: []\n---\nx: 1\n", "fake: s.yaml:2:1: a second YAML document", nil},
		{"not a list", "replies: {name: a}\n", "fake: s.yaml:1:10: replies: want a list of replies", nil},
		{"not a mapping", "replies: [a]\n", "fake: s.yaml:1:11: replies[0]: want a mapping", nil},
		{"duplicate key", "replies:\n  - name: a\n    name: b\n", "fake: s.yaml:3:5: replies[0].name: duplicate key", nil},
		{"merge key", "replies:\n  - <<: {name: a}\n", "fake: s.yaml:2:5: replies[0].<<: merge keys (<<) are not supported", nil},
		{"non-text key", "replies:\n  - [a]: b\n", "fake: s.yaml:2:5: replies[0]: want a text key", nil},
		{"times zero", "replies:\n  - {name: a, times: 0}\n", "fake: s.yaml:2:22: replies[0].times: must be a positive integer, got 0", nil},
		{"times not int", "replies:\n  - {name: a, times: x}\n", `fake: s.yaml:2:22: replies[0].times: want an integer, got "x"`, nil},
		{"string wanted", "replies:\n  - {name: [a]}\n", "fake: s.yaml:2:12: replies[0].name: want a string", nil},
		{"bad duration", "replies:\n  - {name: a, delay: -1s}\n", "replies[0].delay: want a duration such as 250ms", nil},
		{"bad bool", "replies:\n  - {name: a, on: maybe}\n", `replies[0].on: want true or false, got "maybe"`, nil},
		{"field error at its key", "replies:\n  - times: 1\n    name: ''\n", "fake: s.yaml:3:5: replies[0].name: missing name", nil},
		{"field error without its key", "replies:\n  - {times: 1}\n", "fake: s.yaml:2:5: replies[0].name: missing name", nil},
		{"other error at the reply", "replies:\n  - {name: boom}\n", "fake: s.yaml:2:5: replies[0]: cannot compile", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(t, tt.src)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				_, ok := errors.AsType[*fakescript.Error](err)
				assert.True(t, ok, "want a *fakescript.Error, got %T", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReaderBoundsAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [{name: x}, {name: x}]\n")
	prev := "a"
	for i := range 20 {
		fmt.Fprintf(&b, "l%d: &l%d [*%s, *%s]\n", i, i, prev, prev)
		prev = fmt.Sprintf("l%d", i)
	}
	fmt.Fprintf(&b, "replies: *%s\n", prev)
	root, serr := fakescript.Document([]byte(b.String()), "s.yaml", "replies")
	require.Nil(t, serr)
	r := fakescript.Reader{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		n = fakescript.Deref(n)
		if !r.Visit(n, path) {
			return
		}
		if n.Kind == yaml.MappingNode {
			r.Mapping(n, path, func(key string, _, v *yaml.Node) { walk(v, fakescript.Join(path, key)) })
			return
		}
		for i, c := range n.Content {
			walk(c, fakescript.Index(path, i))
			if r.Err != nil {
				return
			}
		}
	}
	walk(root, "")
	require.NotNil(t, r.Err)
	assert.Contains(t, r.Err.Error(), "expands to more than")
}

func TestErrorWithoutFile(t *testing.T) {
	e := &fakescript.Error{Line: 2, Column: 3, Path: "replies[0]", Msg: "bad"}
	assert.Equal(t, "fake: line 2, column 3: replies[0]: bad", e.Error())
}

// TestUses checks the one rule of times for both doubles: 0 is unlimited
// and its answers are not counted; n answers n times, even concurrently,
// until Reset.
func TestUses(t *testing.T) {
	var unlimited fakescript.Uses
	for range 100 {
		require.True(t, unlimited.Claim())
	}
	assert.False(t, unlimited.Exhausted())
	assert.Equal(t, 0, unlimited.Used(), "an unlimited reply's answers are not counted")

	var u fakescript.Uses
	u.Limit(3)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 10 {
		wg.Go(func() {
			if u.Claim() {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 3, won)
	assert.True(t, u.Exhausted())
	assert.Equal(t, 3, u.Used())
	u.Reset()
	assert.False(t, u.Exhausted())
	assert.True(t, u.Claim())
}

func TestUsedUp(t *testing.T) {
	var a, b, c fakescript.Uses
	a.Limit(1)
	b.Limit(2)
	entries := []*fakescript.Uses{&a, &b, &c}
	assert.Empty(t, fakescript.UsedUp(entries))
	require.True(t, a.Claim())
	assert.Equal(t, " (1 of 3 replies have used up their times)", fakescript.UsedUp(entries))
}

func TestWait(t *testing.T) {
	require.NoError(t, fakescript.Wait(t.Context(), 0))
	require.NoError(t, fakescript.Wait(t.Context(), time.Nanosecond))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, fakescript.Wait(ctx, time.Hour), context.Canceled)
}

// FuzzReader checks that no script makes the shared reader panic, and
// that every error it reports has a position.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"replies:\n  - {name: a, times: 2}\n",
		"replies: [\n",
		"replies:\n  - &r {name: a}\n  - *r\n",
		"replies:\n  - <<: {name: a}\n",
		"a: &a [x, x]\nb: [*a, *a]\n",
		"replies: []\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := read(t, string(data))
		if err == nil {
			return
		}
		se, ok := errors.AsType[*fakescript.Error](err)
		if !ok {
			t.Fatalf("error %T: %v", err, err)
		}
		if se.Line < 1 || se.Column < 1 {
			t.Fatalf("no position: %v", se)
		}
	})
}
