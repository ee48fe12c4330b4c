package flow_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/cel"
	"github.com/troupe-dev/troupe/flow"
)

const perRequestFlow = `
schema: crewai.flow/v1
name: Request%d
state: {type: dict, default: {n: %d}}
methods:
  a: {start: true, do: {call: expression, expr: "state.n + %d"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a * 2 - %d"}}
`

// heapAfterGC returns the live heap in bytes.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestEngineMemoryStaysFlatForDistinctDefinitions parses a definition per
// "request" and runs it on one long-lived engine, as a service would: the
// engine must not keep every definition it ever ran.
func TestEngineMemoryStaysFlatForDistinctDefinitions(t *testing.T) {
	eng := flow.NewEngine()
	ctx := context.Background()
	runRequests := func(from, to int) {
		for i := from; i < to; i++ {
			def, err := flow.Parse(fmt.Appendf(nil, perRequestFlow, i, i, i, i), "request.yaml")
			require.NoError(t, err)
			res, err := eng.Run(ctx, def, nil)
			require.NoError(t, err)
			require.Equal(t, int64(3*i), res.Output)
		}
	}
	// Two new expressions a definition: the engine's and the CEL
	// environment's caches are full from here on.
	warm := cel.CacheSize/2 + 2*flow.DefaultProgramCache
	runRequests(0, warm)
	before := heapAfterGC()
	runRequests(warm, warm+1000)
	after := heapAfterGC()
	runtime.KeepAlive(eng)
	// Each definition's program takes several KiB; a thousand kept ones
	// would add megabytes.
	grown := int64(after) - int64(before)
	assert.Less(t, grown, int64(512<<10), "the heap grew by %d bytes over 1000 definitions", grown)
}

func TestCompiledProgramRunsConcurrently(t *testing.T) {
	def, err := flow.Parse(fmt.Appendf(nil, perRequestFlow, 1, 1, 0, 0), "request.yaml")
	require.NoError(t, err)
	p, err := flow.NewEngine(flow.WithProgramCache(0)).Compile(def)
	require.NoError(t, err)
	assert.Same(t, def, p.Definition())
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			res, err := p.Run(context.Background(), map[string]any{"n": int64(i)})
			if assert.NoError(t, err) {
				assert.Equal(t, int64(2*i), res.Output)
			}
		})
	}
	wg.Wait()
	var kinds []flow.EventKind
	for ev, err := range p.Stream(context.Background(), nil) {
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind)
	}
	assert.Equal(t, flow.FlowStarted, kinds[0])
	assert.Equal(t, flow.FlowFinished, kinds[len(kinds)-1])
}

func TestCompileReportsUnresolvableActions(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Refs
methods:
  missing: {start: true, do: {ref: "t:nowhere"}}
`)
	_, err := flow.NewEngine().Compile(def)
	var ce *flow.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "missing", ce.Problems[0].Method)
}
