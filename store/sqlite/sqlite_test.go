package sqlite_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/sqlite"
	"github.com/troupe-dev/troupe/store/storetest"
)

func open(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "flows.db"))
	})
}

func TestConformanceInMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, ":memory:") })
}

func TestOpenCreatesFolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", ".troupe", "flows.db")
	s := open(t, path)
	assert.Equal(t, path, s.Path())
	assert.FileExists(t, path)
}

func TestOpenRejectsBadPaths(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, bytes.Repeat([]byte("not sqlite "), 400), 0o644))
	cases := []struct {
		name, path string
	}{
		{"empty", ""},
		{"query", "flows.db?mode=ro"},
		{"fragment", "flows#1.db"},
		{"parent is a file", filepath.Join(file, "flows.db")},
		{"not a database", file},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlite.Open(c.path)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), "sqlite:")
		})
	}
}

// TestOpenRejectsDamagedFile opens files whose header is sound but whose
// pages are not: Open fails, before any save could be written into them.
func TestOpenRejectsDamagedFile(t *testing.T) {
	cases := []struct {
		name   string
		damage func(data []byte)
	}{
		{"garbage pages", func(data []byte) {
			for i := 4096; i < len(data); i++ {
				data[i] = byte(i * 7)
			}
		}},
		{"a zeroed page", func(data []byte) { clear(data[4096:8192]) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "flows.db")
			s, err := sqlite.Open(path)
			require.NoError(t, err)
			for n := range 20 {
				require.NoError(t, s.Save(t.Context(), storetest.Snapshot(fmt.Sprintf("run-%02d", n), n)))
			}
			require.NoError(t, s.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Greater(t, len(data), 8192, "the file spans several pages")
			c.damage(data)
			require.NoError(t, os.WriteFile(path, data, 0o644))

			s, err = sqlite.Open(path)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), "sqlite: open "+path+": check: ")
		})
	}
}

func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	want := storetest.Snapshot("survivor", 3)
	want.State["pi"] = 3.0
	want.Pending = &store.PendingFeedback{Method: "review", Message: "ok?", Output: int64(1), RequestedAt: storetest.Epoch}
	require.NoError(t, s.Save(t.Context(), want))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice")

	s = open(t, path)
	got, err := s.Load(t.Context(), "survivor")
	require.NoError(t, err)
	storetest.Equal(t, want, got)
}

// TestTwoStoresOneFile writes from two Store values on one file at once;
// each sees the other's runs.
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.db")
	stores := []*sqlite.Store{open(t, path), open(t, path)}
	const each = 40
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			for n := range each {
				snap := storetest.Snapshot(fmt.Sprintf("s%d-%02d", i, n), n)
				assert.NoError(t, s.Save(t.Context(), snap))
				snap = storetest.Snapshot("shared", n)
				assert.NoError(t, s.Save(t.Context(), snap))
				_, err := s.List(t.Context(), store.Filter{Limit: 3})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for i, s := range stores {
		all, err := s.List(t.Context(), store.Filter{})
		require.NoError(t, err)
		assert.Len(t, all, 2*each+1, "store %d", i)
		_, err = s.Load(t.Context(), fmt.Sprintf("s%d-00", 1-i))
		assert.NoError(t, err, "store %d reads the other's run", i)
	}
}

// helperEnv names the database a child process of TestProcesses writes to.
const helperEnv = "TROUPE_SQLITE_STORE_HELPER"

// TestProcesses writes to one file from this process and two child
// processes at once.
func TestProcesses(t *testing.T) {
	if path := os.Getenv(helperEnv); path != "" {
		writeAsChild(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "flows.db")
	s := open(t, path)
	const children, each = 2, 30
	var wg sync.WaitGroup
	for c := range children {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+path, "TROUPE_SQLITE_CHILD="+strconv.Itoa(c))
			out, err := cmd.CombinedOutput()
			assert.NoError(t, err, "child %d: %s", c, out)
		})
	}
	for n := range each {
		require.NoError(t, s.Save(t.Context(), storetest.Snapshot(fmt.Sprintf("parent-%02d", n), n)))
	}
	wg.Wait()
	all, err := s.List(t.Context(), store.Filter{})
	require.NoError(t, err)
	assert.Len(t, all, (children+1)*each)
}

func writeAsChild(t *testing.T, path string) {
	s := open(t, path)
	child := os.Getenv("TROUPE_SQLITE_CHILD")
	for n := range 30 {
		require.NoError(t, s.Save(t.Context(), storetest.Snapshot(fmt.Sprintf("child%s-%02d", child, n), n)))
	}
}

func TestLoadCorruptRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.db")
	s := open(t, path)
	require.NoError(t, s.Save(t.Context(), storetest.Snapshot("run", 0)))
	require.NoError(t, s.Corrupt(t.Context(), "run", `{"state":[1]}`))
	_, err := s.Load(t.Context(), "run")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state")
}

func BenchmarkStore(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "flows.db"))
	storetest.Benchmark(b, s)
}
