package flow

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWorkersAreReusedAndExitWhenIdle(t *testing.T) {
	e := NewEngine()
	e.workers.idleFor = 20 * time.Millisecond
	def, err := Parse([]byte(`
schema: crewai.flow/v1
name: Fan
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  a: {listen: begin, do: {call: expression, expr: "2"}}
  b: {listen: begin, do: {call: expression, expr: "3"}}
  c: {listen: begin, do: {call: expression, expr: "4"}}
  d: {listen: begin, do: {call: expression, expr: "5"}}
`), "fan.yaml")
	require.NoError(t, err)
	before := runtime.NumGoroutine()
	for range 50 {
		res, err := e.Run(context.Background(), def, nil)
		require.NoError(t, err)
		require.Len(t, res.Trace, 5)
	}
	// Each run sends at most three helpers to workers; later runs reuse them.
	require.LessOrEqual(t, runtime.NumGoroutine()-before, 3)
	// (A plain loop: require.Eventually checks on a goroutine of its own.)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left, want %d: idle workers did not exit", runtime.NumGoroutine(), before)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
