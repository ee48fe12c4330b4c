package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/memory/knowledge"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestFileSources(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content, want string
	}{
		{"notes.txt", "plain text\n", "plain text\n"},
		{"README.MD", "\uFEFF# Title\n", "# Title\n"},
		{"data.json", `{"b": [1, 2.0, {"c": "x"}], "a": true, "n": null}`, "a: true\nb[0]: 1\nb[1]: 2.0\nb[2].c: x\nn: null\n"},
		{"scalar.json", `"just text"`, "just text\n"},
		{"people.csv", "name,city\nAlice,Oslo\n\"Bob, Jr\",Bergen,extra\n", "name: Alice, city: Oslo\nname: Bob, Jr, city: Bergen, extra\n"},
		{"header.csv", "name,city\n", "name, city\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, c.name, c.content)
			docs, err := knowledge.File(p).Documents(context.Background())
			require.NoError(t, err)
			require.Len(t, docs, 1)
			assert.Equal(t, p, docs[0].Name)
			assert.Equal(t, c.want, docs[0].Text)
		})
	}
}

func TestFileSourceErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unsupported": write(t, dir, "image.png", "x"),
		"bad JSON":    write(t, dir, "bad.json", "{"),
		"bad CSV":     write(t, dir, "bad.csv", "a,\"b\n"),
		"missing":     filepath.Join(dir, "missing.txt"),
	}
	for name, p := range cases {
		_, err := knowledge.File(p).Documents(context.Background())
		assert.ErrorContains(t, err, "knowledge: ", name)
	}
}

func TestFolderSource(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.md", "bee")
	write(t, dir, "a.txt", "ay")
	write(t, dir, "sub/c.csv", "k\nv\n")
	write(t, dir, "sub/skip.pdf", "pdf")
	write(t, dir, ".hidden/d.txt", "hidden")
	write(t, dir, ".e.txt", "hidden too")
	docs, err := knowledge.Folder(dir).Documents(context.Background())
	require.NoError(t, err)
	var names, texts []string
	for _, d := range docs {
		rel, err := filepath.Rel(dir, d.Name)
		require.NoError(t, err)
		names, texts = append(names, filepath.ToSlash(rel)), append(texts, d.Text)
	}
	assert.Equal(t, []string{"a.txt", "b.md", "sub/c.csv"}, names)
	assert.Equal(t, []string{"ay", "bee", "k: v\n"}, texts)

	_, err = knowledge.Folder(filepath.Join(dir, "missing")).Documents(context.Background())
	assert.Error(t, err)
}

// With Within, a path and every file of a folder must resolve inside the
// allowed folders: "..", absolute paths and symbolic links that lead
// outside are refused with an error that names the path and where it
// leads. A relative path is relative to the first folder.
func TestWithinConfinesFilesAndFolders(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "flow")
	write(t, root, "notes.txt", "inside")
	write(t, root, "kb/a.txt", "folder inside")
	secret := write(t, top, "outside/secret.txt", "secret")
	write(t, top, "extra/e.md", "extra")
	for link, target := range map[string]string{
		"flow/link.txt":    "../outside/secret.txt",
		"flow/linkdir":     "../outside",
		"flow/kb/link.txt": "../../outside/secret.txt",
		"flow/in.txt":      "notes.txt",
	} {
		if err := os.Symlink(target, filepath.Join(top, link)); err != nil {
			t.Skipf("symbolic links are not available: %v", err)
		}
	}
	cases := []struct {
		name   string
		source knowledge.Source
		want   []string // document texts; nil means ErrOutside
	}{
		{"a relative file inside", knowledge.File("notes.txt", knowledge.Within(root)), []string{"inside"}},
		{"an absolute file inside", knowledge.File(filepath.Join(root, "notes.txt"), knowledge.Within(root)), []string{"inside"}},
		{"a link that stays inside", knowledge.File("in.txt", knowledge.Within(root)), []string{"inside"}},
		{"dot-dot out", knowledge.File("../outside/secret.txt", knowledge.Within(root)), nil},
		{"an absolute path out", knowledge.File(secret, knowledge.Within(root)), nil},
		{"a link out", knowledge.File("link.txt", knowledge.Within(root)), nil},
		{"a folder link out", knowledge.Folder("linkdir", knowledge.Within(root)), nil},
		{"a folder out", knowledge.Folder("../outside", knowledge.Within(root)), nil},
		{"a folder skips its links", knowledge.Folder("kb", knowledge.Within(root)), []string{"folder inside"}},
		{"an extra folder", knowledge.File("../extra/e.md", knowledge.Within(root, filepath.Join(top, "extra"))), []string{"extra"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs, err := c.source.Documents(context.Background())
			if c.want == nil {
				require.ErrorIs(t, err, knowledge.ErrOutside)
				assert.ErrorContains(t, err, "knowledge: ")
				assert.ErrorContains(t, err, filepath.Join(top, "outside"), "says where the path leads")
				assert.ErrorContains(t, err, root, "names the allowed folders")
				return
			}
			require.NoError(t, err)
			var texts []string
			for _, d := range docs {
				texts = append(texts, d.Text)
			}
			assert.Equal(t, c.want, texts)
		})
	}
}

// A file that is not a regular file (a folder here; a FIFO would block)
// is refused rather than read.
func TestFileRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "notes.txt"), 0o755))
	_, err := knowledge.File(filepath.Join(dir, "notes.txt")).Documents(context.Background())
	assert.ErrorContains(t, err, "not a regular file")
}
