package confine_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/internal/confine"
)

// tree lays out, under a temporary folder:
//
//	flow/in.txt, flow/sub/in2.txt
//	flow/link_out -> ../outside/secret.txt   (a link out)
//	flow/linkdir_out -> ../outside          (a folder link out)
//	flow/link_in -> sub/in2.txt             (a link that stays in)
//	flow/link_extra -> ../extra/e.txt       (a link into the extra folder)
//	outside/secret.txt, extra/e.txt
//	flowlink -> flow                        (the flow folder through a link)
func tree(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	files := map[string]string{
		"flow/in.txt":        "in",
		"flow/sub/in2.txt":   "in2",
		"outside/secret.txt": "secret",
		"extra/e.txt":        "extra",
	}
	for rel, body := range files {
		p := filepath.Join(top, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	links := map[string]string{
		"flow/link_out":    "../outside/secret.txt",
		"flow/linkdir_out": "../outside",
		"flow/link_in":     "sub/in2.txt",
		"flow/link_extra":  "../extra/e.txt",
		"flowlink":         "flow",
	}
	for rel, target := range links {
		if err := os.Symlink(target, filepath.Join(top, rel)); err != nil {
			t.Skipf("symbolic links are not available: %v", err)
		}
	}
	return top
}

func TestReadFileStaysInside(t *testing.T) {
	top := tree(t)
	cases := []struct {
		name    string
		base    string // relative to top
		extra   []string
		path    string // $TOP is replaced by top
		want    string // the content, when readable
		outside bool   // an *OutsideError
		missing bool   // fs.ErrNotExist
	}{
		{name: "a file inside", base: "flow", path: "in.txt", want: "in"},
		{name: "a file in a sub folder", base: "flow", path: "sub/in2.txt", want: "in2"},
		{name: "dot-dot that comes back", base: "flow", path: "sub/../in.txt", want: "in"},
		{name: "an absolute path inside", base: "flow", path: "$TOP/flow/in.txt", want: "in"},
		{name: "a link that stays inside", base: "flow", path: "link_in", want: "in2"},
		{name: "dot-dot out", base: "flow", path: "../outside/secret.txt", outside: true},
		{name: "an absolute path out", base: "flow", path: "$TOP/outside/secret.txt", outside: true},
		{name: "a link out", base: "flow", path: "link_out", outside: true},
		{name: "a folder link out", base: "flow", path: "linkdir_out/secret.txt", outside: true},
		{name: "a missing file inside", base: "flow", path: "nope.txt", missing: true},
		{name: "a missing file outside", base: "flow", path: "../outside/nope.txt", outside: true},
		{name: "the base through a link", base: "flowlink", path: "in.txt", want: "in"},
		{name: "a link out from a linked base", base: "flowlink", path: "link_out", outside: true},
		{name: "dot-dot into an extra folder", base: "flow", extra: []string{"extra"}, path: "../extra/e.txt", want: "extra"},
		{name: "a link into an extra folder", base: "flow", extra: []string{"extra"}, path: "link_extra", want: "extra"},
		{name: "an extra folder allows no other", base: "flow", extra: []string{"extra"}, path: "link_out", outside: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var extra []string
			for _, e := range c.extra {
				extra = append(extra, filepath.Join(top, e))
			}
			d, err := confine.New(filepath.Join(top, c.base), extra...)
			require.NoError(t, err)
			path := c.path
			if len(path) > 4 && path[:4] == "$TOP" {
				path = top + path[4:]
			}
			data, err := d.ReadFile(path, 0)
			switch {
			case c.outside:
				require.ErrorIs(t, err, confine.ErrOutside)
				var oe *confine.OutsideError
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, path, oe.Path)
				assert.Contains(t, err.Error(), path)
				assert.Contains(t, err.Error(), filepath.Join(top, c.base), "names the allowed folders")
				_, err = d.Stat(path)
				assert.ErrorIs(t, err, confine.ErrOutside, "Stat is confined too")
			case c.missing:
				require.ErrorIs(t, err, fs.ErrNotExist)
				assert.NotErrorIs(t, err, confine.ErrOutside)
				assert.Contains(t, err.Error(), path)
			default:
				require.NoError(t, err)
				assert.Equal(t, c.want, string(data))
			}
		})
	}
}

func TestReadFileLimitAndKind(t *testing.T) {
	top := tree(t)
	d, err := confine.New(filepath.Join(top, "flow"))
	require.NoError(t, err)

	_, err = d.ReadFile("in.txt", 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1 bytes")

	data, err := d.ReadFile("in.txt", 2)
	require.NoError(t, err)
	assert.Equal(t, "in", string(data))

	_, err = d.ReadFile("sub", 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
}

func TestResolveAndList(t *testing.T) {
	top := tree(t)
	d, err := confine.New(filepath.Join(top, "flowlink"), filepath.Join(top, "extra"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(top, "flowlink"), d.Base())
	assert.Equal(t, []string{filepath.Join(top, "flowlink"), filepath.Join(top, "extra")}, d.List())

	real, err := d.Resolve("link_in")
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(filepath.Join(top, "flow", "sub", "in2.txt"))
	require.NoError(t, err)
	assert.Equal(t, want, real)

	_, err = d.Resolve("link_out")
	var oe *confine.OutsideError
	require.True(t, errors.As(err, &oe))
	assert.Contains(t, oe.Resolved, filepath.Join("outside", "secret.txt"))
}

func TestNewRefusesAnEmptyFolder(t *testing.T) {
	_, err := confine.New("")
	require.Error(t, err)
	_, err = confine.New(t.TempDir(), "")
	require.Error(t, err)
}
