package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunsLists(t *testing.T) {
	dir := inTempDir(t)
	paused := pausedRun(t, flowFile(t, dir, "flow.yaml", reviewFlow))
	code, _, errOut := troupe(t, "", "run", flowFile(t, dir, "counter.yaml", persistedFlow), "--inputs", `{"id": "done-1"}`)
	require.Equal(t, exitOK, code, errOut)

	cases := []struct {
		name string
		args []string
		ids  []string
	}{
		{name: "all, most recent first", ids: []string{"done-1", paused}},
		{name: "paused", args: []string{"--status", "paused"}, ids: []string{paused}},
		{name: "completed", args: []string{"--status", "completed"}, ids: []string{"done-1"}},
		{name: "running", args: []string{"--status", "running"}, ids: []string{}},
		{name: "by flow", args: []string{"--flow", "Review"}, ids: []string{paused}},
		{name: "limit", args: []string{"--limit", "1"}, ids: []string{"done-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := troupe(t, "", append([]string{"runs", "--json"}, c.args...)...)
			require.Equal(t, exitOK, code, errOut)
			var runs []storedRun
			require.NoError(t, json.Unmarshal([]byte(out), &runs), out)
			ids := []string{}
			for _, r := range runs {
				ids = append(ids, r.FlowID)
			}
			assert.Equal(t, c.ids, ids)
		})
	}

	t.Run("json fields", func(t *testing.T) {
		_, out, _ := troupe(t, "", "runs", "--json", "--status", "paused")
		var runs []storedRun
		require.NoError(t, json.Unmarshal([]byte(out), &runs), out)
		require.Len(t, runs, 1)
		r := runs[0]
		assert.Equal(t, "Review", r.Flow)
		assert.Equal(t, "paused", r.Status)
		assert.Equal(t, "review", r.Method)
		assert.Equal(t, []string{"first"}, r.Completed)
		assert.False(t, r.UpdatedAt.IsZero())
		require.NotNil(t, r.Pending)
		assert.Equal(t, "Approve the draft?", r.Pending.Message)
	})
	t.Run("table", func(t *testing.T) {
		code, out, errOut := troupe(t, "", "runs")
		require.Equal(t, exitOK, code, errOut)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, 3, out)
		assert.Equal(t, []string{"FLOW", "ID", "FLOW", "STATUS", "METHOD", "UPDATED"}, strings.Fields(lines[0]))
		assert.Equal(t, []string{"done-1", "Counter", "completed", "-"}, strings.Fields(lines[1])[:4])
		assert.Equal(t, []string{paused, "Review", "paused", "review"}, strings.Fields(lines[2])[:4])
	})
}

func TestRunsWithoutStore(t *testing.T) {
	inTempDir(t)
	code, out, errOut := troupe(t, "", "runs")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, out)
	assert.Equal(t, "No stored runs in .troupe/flows.db.\n", errOut)

	code, out, _ = troupe(t, "", "runs", "--json")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "[]\n", out)
	assert.NoDirExists(t, ".troupe", "listing must not create the store")

	code, _, errOut = troupe(t, "", "runs", "--status", "stopped")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `invalid --status "stopped"`)
}

// The store opens only when a run saves: a flow without persistence or
// feedback leaves no file behind.
func TestRunCreatesNoStoreUnlessSaving(t *testing.T) {
	dir := inTempDir(t)
	code, _, errOut := troupe(t, "", "run", flowFile(t, dir, "flow.yaml",
		"schema: crewai.flow/v1\nname: Plain\nmethods:\n  a: {start: true, do: {call: expression, expr: \"1\"}}\n"))
	require.Equal(t, exitOK, code, errOut)
	assert.NoDirExists(t, filepath.Join(dir, ".troupe"))
}

func TestStoreFlag(t *testing.T) {
	dir := inTempDir(t)
	path := flowFile(t, dir, "flow.yaml", reviewFlow)
	code, _, errOut := troupe(t, "", "run", path, "--store", "runs/review.db")
	require.Equal(t, exitPaused, code, errOut)
	id := flowIDLine.FindStringSubmatch(errOut)
	require.NotNil(t, id, errOut)
	assert.Contains(t, errOut, "troupe resume "+path+" --id "+id[1]+" --store runs/review.db --feedback")
	assert.NoDirExists(t, ".troupe")
	assert.FileExists(t, "runs/review.db")

	_, out, _ := troupe(t, "", "runs", "--json", "--store", "runs/review.db")
	assert.Contains(t, out, id[1])
	code, out, errOut = troupe(t, "", "resume", path, "--id", id[1], "--store", "runs/review.db", "--feedback", "approved")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Published draft-AI\n", out)
}

// persist blocks naming CrewAI's SQLiteFlowPersistence save to its db_path,
// or to the command's store when they name none.
func TestSQLiteFlowPersistenceBackend(t *testing.T) {
	cases := []struct {
		name, persistence, file string
	}{
		{name: "db_path", persistence: "{persistence_type: SQLiteFlowPersistence, db_path: data/states.db}", file: "data/states.db"},
		{name: "default path", persistence: "{persistence_type: SQLiteFlowPersistence}", file: ".troupe/flows.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := inTempDir(t)
			body := strings.Replace(persistedFlow, "persist: {enabled: true}",
				"persist: {enabled: true, persistence: "+c.persistence+"}", 1)
			code, out, errOut := troupe(t, "", "run", flowFile(t, dir, "flow.yaml", body), "--inputs", `{"id": "c-1"}`)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, "1\n", out)
			_, out, _ = troupe(t, "", "runs", "--json", "--store", c.file)
			assert.Contains(t, out, `"flow_id":"c-1"`)
		})
	}
	t.Run("unknown backend", func(t *testing.T) {
		dir := inTempDir(t)
		body := strings.Replace(persistedFlow, "persist: {enabled: true}",
			"persist: {enabled: true, persistence: {persistence_type: RedisFlowPersistence}}", 1)
		code, _, errOut := troupe(t, "", "run", flowFile(t, dir, "flow.yaml", body))
		assert.Equal(t, exitFail, code)
		assert.Contains(t, errOut, "RedisFlowPersistence")
	})
}
