package flow_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/troupe-dev/troupe/flow"
)

// The W1-W5 workloads of shared/bench/WORKLOADS.md. Each has a "go"
// variant (methods are Go closures over the state) and a "declarative"
// variant (YAML with expression actions, data carried in outputs).

func incX(_ context.Context, in flow.Input) (any, error) {
	x, _ := in.State.Value("x").(int64)
	in.State.Set("x", x+1)
	return nil, nil
}

// goChain builds START -> n0 -> ... -> n(n-1) with x <- x + 1 in each.
func goChain(tb testing.TB, n int) *flow.Definition {
	def := &flow.Definition{Name: "Chain"}
	for i := range n {
		m := &flow.Method{Name: fmt.Sprintf("n%d", i), Do: &flow.Action{Call: flow.CallCode, Func: incX}}
		if i == 0 {
			m.Start.Always = true
		} else {
			m.Listen = flow.On(fmt.Sprintf("n%d", i-1))
		}
		def.Methods = append(def.Methods, m)
	}
	mustValid(tb, def)
	return def
}

func yamlChain(tb testing.TB, n int) *flow.Definition {
	var b strings.Builder
	b.WriteString("schema: crewai.flow/v1\nname: Chain\nstate: {type: dict, default: {x: 0}}\nmethods:\n")
	b.WriteString("  n0: {start: true, do: {call: expression, expr: state.x + 1}}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  n%d: {listen: n%d, do: {call: expression, expr: outputs.n%d + 1}}\n", i, i-1, i-1)
	}
	def, err := flow.Parse([]byte(b.String()), "chain.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return def
}

func mustValid(tb testing.TB, def *flow.Definition) {
	if ds := flow.Validate(def); ds.HasErrors() {
		tb.Fatal(ds)
	}
}

// benchRuns runs def once per iteration. As WORKLOADS.md asks, the inputs
// are made before the timer starts; inputs[i%len(inputs)] feeds run i.
func benchRuns(b *testing.B, def *flow.Definition, inputs []map[string]any, check func(i int, r *flow.Result) bool) {
	eng := flow.NewEngine()
	ctx := context.Background()
	if _, err := eng.Run(ctx, def, inputs[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := eng.Run(ctx, def, inputs[i%len(inputs)])
		if err != nil || !check(i, res) {
			b.Fatalf("run %d: %v %+v", i, err, res)
		}
	}
}

func xZero() map[string]any { return map[string]any{"x": int64(0)} }

// zeroInput is the single input of W1, W2 and W5; runs do not change it.
var zeroInput = []map[string]any{xZero()}

func BenchmarkW1Chain10(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		benchRuns(b, goChain(b, 10), zeroInput, func(_ int, r *flow.Result) bool { return r.State["x"] == int64(10) })
	})
	b.Run("declarative", func(b *testing.B) {
		benchRuns(b, yamlChain(b, 10), zeroInput, func(_ int, r *flow.Result) bool { return r.Output == int64(10) })
	})
}

func goFanout(tb testing.TB) *flow.Definition {
	def := &flow.Definition{Name: "Fanout"}
	def.Methods = append(def.Methods, &flow.Method{Name: "entry", Start: flow.Start{Always: true},
		Do: &flow.Action{Call: flow.CallCode, Func: incX}})
	var branches []*flow.Condition
	fields := make([]string, 8)
	for i := range fields {
		fields[i] = fmt.Sprintf("b%d", i)
	}
	for i := range 8 {
		field := fields[i]
		def.Methods = append(def.Methods, &flow.Method{Name: fmt.Sprintf("br%d", i), Listen: flow.On("entry"),
			Do: &flow.Action{Call: flow.CallCode, Func: func(_ context.Context, in flow.Input) (any, error) {
				x, _ := in.State.Value("x").(int64)
				in.State.Set(field, x+int64(i))
				return nil, nil
			}}})
		branches = append(branches, flow.On(fmt.Sprintf("br%d", i)))
	}
	def.Methods = append(def.Methods, &flow.Method{Name: "join", Listen: flow.And(branches...),
		Do: &flow.Action{Call: flow.CallCode, Func: func(_ context.Context, in flow.Input) (any, error) {
			var sum int64
			in.State.Update(func(s map[string]any) {
				for _, f := range fields {
					v, _ := s[f].(int64)
					sum += v
				}
				s["sum"] = sum
			})
			return nil, nil
		}}})
	mustValid(tb, def)
	return def
}

func yamlFanout(tb testing.TB) *flow.Definition {
	var b strings.Builder
	b.WriteString("schema: crewai.flow/v1\nname: Fanout\nstate: {type: dict, default: {x: 0}}\nmethods:\n")
	b.WriteString("  entry: {start: true, do: {call: expression, expr: state.x + 1}}\n")
	var names, sum []string
	for i := range 8 {
		fmt.Fprintf(&b, "  br%d: {listen: entry, do: {call: expression, expr: outputs.entry + %d}}\n", i, i)
		names = append(names, fmt.Sprintf("br%d", i))
		sum = append(sum, fmt.Sprintf("outputs.br%d", i))
	}
	fmt.Fprintf(&b, "  join: {listen: {and: [%s]}, do: {call: expression, expr: '%s'}}\n", strings.Join(names, ", "), strings.Join(sum, " + "))
	def, err := flow.Parse([]byte(b.String()), "fanout.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return def
}

func BenchmarkW2Fanout8(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		benchRuns(b, goFanout(b), zeroInput, func(_ int, r *flow.Result) bool {
			return r.State["sum"] == int64(36) && len(r.Trace) == 10 && r.Trace[9] == "join"
		})
	})
	b.Run("declarative", func(b *testing.B) {
		benchRuns(b, yamlFanout(b), zeroInput, func(_ int, r *flow.Result) bool { return r.Output == int64(36) && len(r.Trace) == 10 })
	})
}

func goRouter(tb testing.TB) *flow.Definition {
	keepX := func(_ context.Context, in flow.Input) (any, error) {
		in.State.Set("x", in.State.Value("x"))
		return nil, nil
	}
	setOut := func(v string) flow.Handler {
		var out any = v // boxed once, as a constant would be
		return func(_ context.Context, in flow.Input) (any, error) {
			in.State.Set("out", out)
			return out, nil
		}
	}
	def := &flow.Definition{Name: "Router", Methods: []*flow.Method{
		{Name: "entry", Start: flow.Start{Always: true}, Do: &flow.Action{Call: flow.CallCode, Func: keepX}},
		{Name: "route", Listen: flow.On("entry"), Router: true, Emit: []string{"A", "B"},
			Do: &flow.Action{Call: flow.CallCode, Func: func(_ context.Context, in flow.Input) (any, error) {
				x, _ := in.State.Value("x").(int64)
				in.State.Set("x", x)
				if x%2 == 0 {
					return "A", nil
				}
				return "B", nil
			}}},
		{Name: "a", Listen: flow.On("A"), Do: &flow.Action{Call: flow.CallCode, Func: setOut("A")}},
		{Name: "b", Listen: flow.On("B"), Do: &flow.Action{Call: flow.CallCode, Func: setOut("B")}},
	}}
	mustValid(tb, def)
	return def
}

const yamlRouterDoc = `schema: crewai.flow/v1
name: Router
state: {type: dict, default: {x: 0}}
methods:
  entry: {start: true, do: {call: expression, expr: state.x}}
  route:
    listen: entry
    router: true
    emit: [A, B]
    do: {call: expression, expr: "outputs.entry % 2 == 0 ? 'A' : 'B'"}
  a: {listen: A, do: {call: expression, expr: "'A'"}}
  b: {listen: B, do: {call: expression, expr: "'B'"}}
`

func BenchmarkW3Router(b *testing.B) {
	alt := []map[string]any{{"x": int64(0)}, {"x": int64(1)}}
	want := func(i int) string { return []string{"A", "B"}[i%2] }
	b.Run("go", func(b *testing.B) {
		benchRuns(b, goRouter(b), alt, func(i int, r *flow.Result) bool { return r.State["out"] == want(i) })
	})
	b.Run("declarative", func(b *testing.B) {
		def, err := flow.Parse([]byte(yamlRouterDoc), "router.yaml")
		if err != nil {
			b.Fatal(err)
		}
		benchRuns(b, def, alt, func(i int, r *flow.Result) bool { return r.Output == want(i) })
	})
}

func BenchmarkW4Concurrent1000(b *testing.B) {
	batch := func(b *testing.B, def *flow.Definition, ok func(*flow.Result) bool) {
		eng := flow.NewEngine()
		ctx := context.Background()
		if _, err := eng.Run(ctx, def, xZero()); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			var wg sync.WaitGroup
			errs := make(chan error, 1000)
			for range 1000 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := eng.Run(ctx, def, xZero())
					if err == nil && !ok(res) {
						err = fmt.Errorf("wrong result %+v", res)
					}
					if err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("go", func(b *testing.B) {
		batch(b, goChain(b, 10), func(r *flow.Result) bool { return r.State["x"] == int64(10) })
	})
	b.Run("declarative", func(b *testing.B) {
		batch(b, yamlChain(b, 10), func(r *flow.Result) bool { return r.Output == int64(10) })
	})
}

func BenchmarkW5Chain1000(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		benchRuns(b, goChain(b, 1000), zeroInput, func(_ int, r *flow.Result) bool { return r.State["x"] == int64(1000) })
	})
	b.Run("declarative", func(b *testing.B) {
		benchRuns(b, yamlChain(b, 1000), zeroInput, func(_ int, r *flow.Result) bool { return r.Output == int64(1000) })
	})
	b.Run("go-build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			def := goChain(b, 1000)
			if _, err := flow.NewEngine().Compile(def); err != nil {
				b.Fatal(err)
			}
		}
	})
}
