package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store/sqlite"
	"github.com/troupe-dev/troupe/store/storetest"
)

// damagedStore writes a store file at path whose header is sound and whose
// pages after the first are garbage.
func damagedStore(t *testing.T, path string) {
	t.Helper()
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	for n := range 20 {
		require.NoError(t, s.Save(t.Context(), storetest.Snapshot(fmt.Sprintf("old-%02d", n), n)))
	}
	require.NoError(t, s.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := 4096; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// TestDamagedStoreFailsBeforeTheRun runs a persisted flow, and one that
// pauses, on a damaged store: each fails before its first method, saying
// which file, and no pause is reported.
func TestDamagedStoreFailsBeforeTheRun(t *testing.T) {
	cases := []struct{ name, body string }{
		{"persisted", persistedFlow},
		{"pausing", reviewFlow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			damagedStore(t, filepath.Join(dir, sqlite.DefaultPath))
			code, out, errOut := troupe(t, "", "run", flowFile(t, dir, "flow.yaml", c.body))
			assert.Equal(t, exitFail, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "sqlite: open "+sqlite.DefaultPath+": check: ")
			assert.NotContains(t, errOut, "method \"", "no method ran")
			assert.NotContains(t, errOut, "paused")
		})
	}
}
