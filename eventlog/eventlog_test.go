package eventlog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/eventlog"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

func TestRecordsRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	events := []flow.Event{
		{Seq: 1, Kind: flow.FlowStarted, RunID: "r1", Flow: "F", Time: t0, Inputs: map[string]any{"topic": "go"}},
		{Seq: 2, Parent: 1, Kind: flow.MethodStarted, RunID: "r1", Flow: "F", Method: "m", Time: t0},
		{Seq: 3, Parent: 2, Kind: flow.ToolStarted, RunID: "r1", Flow: "F", Method: "m", Tool: "t", CallID: "c1",
			Arguments: json.RawMessage(`{"broken"`), Time: t0},
		{Seq: 4, Parent: 3, Kind: flow.ToolFailed, RunID: "r1", Flow: "F", Method: "m", Tool: "t", Err: errors.New("bad args"),
			Duration: 1500 * time.Microsecond, Time: t0},
		{Seq: 5, Parent: 2, Kind: flow.MethodFinished, RunID: "r1", Flow: "F", Method: "m", Output: math.NaN(), Outcome: "go",
			Time: t0.Add(time.Second), Duration: time.Second},
		{Seq: 6, Parent: 1, Kind: flow.FlowFinished, RunID: "r1", Flow: "F", Time: t0.Add(time.Second),
			Result: &flow.Result{Usage: llm.Usage{InputTokens: 3, OutputTokens: 4}}},
	}
	var buf bytes.Buffer
	w := eventlog.NewWriter(&buf)
	for _, ev := range events {
		w.Observe(ev)
	}
	require.NoError(t, w.Flush())
	recs, err := eventlog.Read(&buf)
	require.NoError(t, err)
	require.Len(t, recs, len(events))
	assert.JSONEq(t, `{"topic":"go"}`, string(recs[0].Inputs))
	assert.JSONEq(t, `"{\"broken\""`, string(recs[2].Arguments), "invalid arguments are kept as a string")
	assert.Equal(t, "bad args", recs[3].Error)
	assert.Equal(t, 1500*time.Microsecond, recs[3].Duration())
	assert.JSONEq(t, `"NaN"`, string(recs[4].Output), "a value JSON cannot hold is printed")
	assert.Equal(t, "go", recs[4].Outcome)
	require.NotNil(t, recs[5].Usage)
	assert.Equal(t, int64(7), recs[5].Usage.Total())

	roots := eventlog.Tree(recs)
	require.Len(t, roots, 1)
	run := roots[0]
	require.NotNil(t, run.End)
	assert.Equal(t, "flow_finished", run.End.Kind)
	require.Len(t, run.Children, 1)
	method := run.Children[0]
	assert.Equal(t, time.Second, method.Elapsed())
	require.Len(t, method.Children, 1)
	assert.True(t, method.Children[0].Failed())
	assert.Equal(t, int64(7), run.TotalUsage().Total())
}
