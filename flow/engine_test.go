package flow_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

func mustParse(t *testing.T, doc string) *flow.Definition {
	t.Helper()
	def, err := flow.Parse([]byte(doc), "test.yaml")
	require.NoError(t, err)
	return def
}

func TestRouterTrimsOutcome(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Trim
methods:
  intake: {start: true, do: {call: expression, expr: "'x'"}}
  triage: {listen: intake, router: true, emit: [publish, revise], do: {call: expression, expr: "'  publish\\n'"}}
  ship: {listen: publish, do: {call: expression, expr: "'done'"}}
`)
	res, err := flow.NewEngine().Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"intake", "triage", "ship"}, res.Trace)
	assert.Equal(t, "done", res.Output)
}

func TestRouterOutcomeMatchesEmitCaseInsensitively(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Case
methods:
  route: {start: true, router: true, emit: [Approved, rejected], do: {call: expression, expr: "'APPROVED'"}}
  ok: {listen: Approved, do: {call: expression, expr: "'shipped'"}}
`)
	res, err := flow.NewEngine().Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "shipped", res.Output)
}

func TestRouterOutcomeOutsideEmitFails(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Strict
methods:
  route: {start: true, router: true, emit: [yes_path, no_path], do: {call: expression, expr: "'maybe'"}}
  a: {listen: yes_path, do: {call: expression, expr: "1"}}
  b: {listen: no_path, do: {call: expression, expr: "2"}}
`)
	_, err := flow.NewEngine().Run(context.Background(), def, nil)
	require.Error(t, err)
	var me *flow.MethodError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "route", me.Method)
	assert.Contains(t, err.Error(), `returned "maybe", which is not one of its emit values [yes_path no_path]`)
}

func TestFailureCancelsSiblings(t *testing.T) {
	var cancelled atomic.Bool
	started := make(chan struct{})
	eng := flow.NewEngine(
		flow.WithCode("t:slow", func(ctx context.Context, _ flow.Input) (any, error) {
			close(started)
			select {
			case <-ctx.Done():
				cancelled.Store(true)
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return "late", nil
			}
		}),
		flow.WithCode("t:boom", func(context.Context, flow.Input) (any, error) {
			<-started
			return nil, errors.New("boom")
		}),
	)
	def := mustParse(t, `
schema: crewai.flow/v1
name: Siblings
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  slow: {listen: begin, do: {ref: "t:slow"}}
  fail: {listen: begin, do: {ref: "t:boom"}}
`)
	_, err := eng.Run(context.Background(), def, nil)
	require.Error(t, err)
	var me *flow.MethodError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "fail", me.Method)
	assert.Contains(t, err.Error(), "boom")
	assert.True(t, cancelled.Load(), "the running sibling saw its context cancelled")
}

func TestPanickingHandlerFailsItsMethod(t *testing.T) {
	eng := flow.NewEngine(flow.WithCode("t:panic", func(context.Context, flow.Input) (any, error) {
		panic("bad index")
	}))
	def := mustParse(t, `
schema: crewai.flow/v1
name: Panics
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  left: {listen: begin, do: {call: expression, expr: "2"}}
  right: {listen: begin, do: {ref: "t:panic"}}
`)
	for range 3 { // the run's recycled state must be clean afterwards
		_, err := eng.Run(context.Background(), def, nil)
		var me *flow.MethodError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "right", me.Method)
		assert.Contains(t, err.Error(), "code handler panicked: bad index")
	}
}

func TestContextCancellationStopsRun(t *testing.T) {
	started := make(chan struct{})
	eng := flow.NewEngine(flow.WithCode("t:wait", func(ctx context.Context, _ flow.Input) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	def := mustParse(t, `
schema: crewai.flow/v1
name: Cancel
methods:
  wait: {start: true, do: {ref: "t:wait"}}
`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := eng.Run(ctx, def, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestUnregisteredRefFailsBeforeRunning(t *testing.T) {
	ran := false
	eng := flow.NewEngine(flow.WithCode("t:ok", func(context.Context, flow.Input) (any, error) {
		ran = true
		return nil, nil
	}))
	def := mustParse(t, `
schema: crewai.flow/v1
name: Refs
methods:
  ok: {start: true, do: {ref: "t:ok"}}
  missing: {listen: ok, do: {ref: "t:nowhere"}}
  bad: {listen: ok, do: {ref: "no-colon"}}
`)
	_, err := eng.Run(context.Background(), def, nil)
	var be *flow.CompileError
	require.ErrorAs(t, err, &be)
	assert.False(t, ran)
	assert.Contains(t, err.Error(), "Cannot build flow 'Refs' from its definition; methods with unresolvable actions: missing: unresolvable do ref 't:nowhere'")
	assert.Contains(t, err.Error(), "bad: invalid do ref 'no-colon'; expected 'module:qualname'")
}

// Scripts are off unless the host passes WithScripts(true). The engine
// reads no environment variable: CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1 in
// the process environment does not switch them on (the CLI reads it and
// passes the option).
func TestScriptsAreOffByDefault(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Script
methods:
  s: {start: true, do: {call: script, code: "return 1"}}
`)
	for _, env := range []string{"", "1", "true"} {
		t.Run("env="+env, func(t *testing.T) {
			t.Setenv("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION", env)
			_, err := flow.NewEngine().Run(context.Background(), def, nil)
			require.ErrorIs(t, err, flow.ErrScriptsDisabled)
			assert.Contains(t, err.Error(), "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1")
			assert.Contains(t, err.Error(), "flow.WithScripts(true)")
			assert.NotContains(t, err.Error(), "methods with unresolvable actions")
		})
	}
}

func TestOrListenerRacesAndFiresOnce(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Race
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  a: {listen: begin, do: {call: expression, expr: "'a'"}}
  b: {listen: begin, do: {call: expression, expr: "'b'"}}
  c: {listen: {or: [a, b]}, do: {call: expression, expr: "'c'"}}
`)
	for range 20 {
		res, err := flow.NewEngine().Run(context.Background(), def, nil)
		require.NoError(t, err)
		assert.Len(t, res.Trace, 3, "begin, one winner of a/b, then c: %v", res.Trace)
		assert.Equal(t, "c", res.Output)
	}
}

func TestEventsAreOrderedAndSuppressible(t *testing.T) {
	doc := `
schema: crewai.flow/v1
name: Events
config: {suppress_flow_events: %s}
methods:
  a: {start: true, do: {call: expression, expr: "1"}}
  b: {listen: a, do: {call: expression, expr: "outputs.a + 1"}}
`
	for _, suppress := range []bool{false, true} {
		var kinds []flow.EventKind
		var seqs []int64
		eng := flow.NewEngine(flow.WithEvents(func(ev flow.Event) {
			kinds = append(kinds, ev.Kind)
			seqs = append(seqs, ev.Seq)
			assert.Equal(t, "Events", ev.Flow)
		}))
		def := mustParse(t, fmtBool(doc, suppress))
		_, err := eng.Run(context.Background(), def, nil)
		require.NoError(t, err)
		if suppress {
			assert.Equal(t, []flow.EventKind{flow.FlowStarted, flow.FlowFinished}, kinds)
		} else {
			assert.Equal(t, []flow.EventKind{flow.FlowStarted, flow.MethodStarted, flow.MethodFinished,
				flow.MethodStarted, flow.MethodFinished, flow.FlowFinished}, kinds)
		}
		for i := range seqs {
			assert.Equal(t, int64(i+1), seqs[i])
		}
	}
}

func TestStreamYieldsEventsThenResult(t *testing.T) {
	def := mustParse(t, `
schema: crewai.flow/v1
name: Stream
methods:
  a: {start: true, do: {call: expression, expr: "'hi'"}}
`)
	var last flow.Event
	n := 0
	for ev, err := range flow.NewEngine().Stream(context.Background(), def, nil) {
		require.NoError(t, err)
		last = ev
		n++
	}
	assert.Equal(t, 4, n)
	require.Equal(t, flow.FlowFinished, last.Kind)
	assert.Equal(t, "hi", last.Result.Output)
}

func TestConcurrentRunsOfOneDefinition(t *testing.T) {
	def := yamlChain(t, 10)
	eng := flow.NewEngine()
	errs := make(chan error, 50)
	for i := range 50 {
		go func() {
			res, err := eng.Run(context.Background(), def, map[string]any{"x": int64(i)})
			if err == nil && res.Output != int64(i+10) {
				err = errors.New("wrong output")
			}
			errs <- err
		}()
	}
	for range 50 {
		require.NoError(t, <-errs)
	}
}

func fmtBool(doc string, b bool) string {
	s := "false"
	if b {
		s = "true"
	}
	return fmtS(doc, s)
}

func fmtS(doc, s string) string {
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '%' && doc[i+1] == 's' {
			return doc[:i] + s + doc[i+2:]
		}
	}
	return doc
}

// Runs recycle their scheduler state: many concurrent runs of a fan-out
// flow, some failing, must each end with their own data.
func TestConcurrentFanOutRunsKeepTheirOwnData(t *testing.T) {
	branch := func(i int64) flow.Handler {
		return func(_ context.Context, in flow.Input) (any, error) {
			n, _ := in.State.Value("n").(int64)
			if n < 0 && i == 2 {
				return nil, errors.New("negative")
			}
			return n * i, nil
		}
	}
	def := &flow.Definition{Name: "FanOut", Methods: []*flow.Method{
		{Name: "begin", Start: flow.Start{Always: true}, Do: &flow.Action{Call: flow.CallCode,
			Func: func(_ context.Context, in flow.Input) (any, error) { return in.State.Value("n"), nil }}},
		{Name: "b1", Listen: flow.On("begin"), Do: &flow.Action{Call: flow.CallCode, Func: branch(1)}},
		{Name: "b2", Listen: flow.On("begin"), Do: &flow.Action{Call: flow.CallCode, Func: branch(2)}},
		{Name: "b3", Listen: flow.On("begin"), Do: &flow.Action{Call: flow.CallCode, Func: branch(3)}},
		{Name: "join", Listen: flow.And(flow.On("b1"), flow.On("b2"), flow.On("b3")), Do: &flow.Action{Call: flow.CallCode,
			Func: func(_ context.Context, in flow.Input) (any, error) {
				n, _ := in.State.Value("n").(int64)
				return n * 6, nil
			}}},
	}}
	eng := flow.NewEngine()
	type outcome struct {
		n   int64
		res *flow.Result
		err error
	}
	results := make(chan outcome, 200)
	for i := range 200 {
		n := int64(i)
		if i%5 == 0 {
			n = -n - 1
		}
		go func() {
			res, err := eng.Run(context.Background(), def, map[string]any{"n": n})
			results <- outcome{n, res, err}
		}()
	}
	for range 200 {
		o := <-results
		if o.n < 0 {
			var me *flow.MethodError
			require.ErrorAs(t, o.err, &me)
			assert.Equal(t, "b2", me.Method)
			continue
		}
		require.NoError(t, o.err)
		assert.Equal(t, o.n*6, o.res.Output)
		assert.Equal(t, o.n, o.res.State["n"])
		assert.Equal(t, o.res.RunID, o.res.State["id"])
		assert.Equal(t, o.n*3, o.res.Outputs["b3"])
		assert.Len(t, o.res.Trace, 5)
		assert.Equal(t, "join", o.res.Trace[4])
	}
}

// Listeners of one event run concurrently: each of these waits until all
// four have started, which only works when a blocked one does not hold up
// the others, even on one CPU.
func TestBlockedListenersDoNotHoldUpTheirSiblings(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var arrived atomic.Int32
			all := make(chan struct{})
			wait := func(ctx context.Context, _ flow.Input) (any, error) {
				if arrived.Add(1) == 4 {
					close(all)
				}
				select {
				case <-all:
					return "ok", nil
				case <-time.After(5 * time.Second):
					return nil, errors.New("the other listeners never started")
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			def := &flow.Definition{Name: "Barrier", Methods: []*flow.Method{
				{Name: "begin", Start: flow.Start{Always: true}, Do: &flow.Action{Call: flow.CallCode,
					Func: func(context.Context, flow.Input) (any, error) { return nil, nil }}},
			}}
			for i := range 4 {
				def.Methods = append(def.Methods, &flow.Method{Name: fmt.Sprintf("w%d", i), Listen: flow.On("begin"),
					Do: &flow.Action{Call: flow.CallCode, Func: wait}})
			}
			res, err := flow.NewEngine().Run(context.Background(), def, nil)
			require.NoError(t, err)
			assert.Len(t, res.Trace, 5)
		})
	}
}
