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
