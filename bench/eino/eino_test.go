// Package eino runs workloads W1-W3 of shared/bench/WORKLOADS.md on eino's
// compose.Graph, so that Troupe's figures can be compared with eino's on
// the same machine at the same time (see ../compare.sh). It is a module
// of its own: eino is not a dependency of Troupe.
//
// eino is a data-flow engine: a node's output map is the next node's
// input, and at the W2 join eino merges the eight branch maps.
package eino

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/compose"
)

// S is the message every node takes and returns.
type S = map[string]any

// chain builds START -> n0 -> ... -> n(n-1) -> END with x <- x + 1 in each.
func chain(b *testing.B, n int) compose.Runnable[S, S] {
	ctx := context.Background()
	g := compose.NewGraph[S, S]()
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		if err := g.AddLambdaNode(name, compose.InvokableLambda(func(_ context.Context, in S) (S, error) {
			return S{"x": in["x"].(int) + 1}, nil
		})); err != nil {
			b.Fatal(err)
		}
		from := compose.START
		if i > 0 {
			from = fmt.Sprintf("n%d", i-1)
		}
		if err := g.AddEdge(from, name); err != nil {
			b.Fatal(err)
		}
	}
	if err := g.AddEdge(fmt.Sprintf("n%d", n-1), compose.END); err != nil {
		b.Fatal(err)
	}
	r, err := g.Compile(ctx, compose.WithMaxRunSteps(n+10))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkEinoW1Chain10 runs W1: ten nodes in a line.
func BenchmarkEinoW1Chain10(b *testing.B) {
	r := chain(b, 10)
	ctx := context.Background()
	in := S{"x": 0}
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.Invoke(ctx, in)
		if err != nil || out["x"] != 10 {
			b.Fatal(err, out)
		}
	}
}

// fields are the W2 branch outputs.
var fields = []string{"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"}

// BenchmarkEinoW2Fanout8 joins the eight branches with eino's
// AllPredecessor trigger mode: join runs once, after all of them.
func BenchmarkEinoW2Fanout8(b *testing.B) {
	ctx := context.Background()
	g := compose.NewGraph[S, S]()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(g.AddLambdaNode("entry", compose.InvokableLambda(func(_ context.Context, in S) (S, error) {
		return S{"x": in["x"].(int) + 1}, nil
	})))
	must(g.AddEdge(compose.START, "entry"))
	must(g.AddLambdaNode("join", compose.InvokableLambda(func(_ context.Context, in S) (S, error) {
		sum := 0
		for _, f := range fields {
			sum += in[f].(int)
		}
		return S{"sum": sum}, nil
	})))
	for i := range 8 {
		name, field := fmt.Sprintf("br%d", i), fields[i]
		must(g.AddLambdaNode(name, compose.InvokableLambda(func(_ context.Context, in S) (S, error) {
			return S{field: in["x"].(int) + i}, nil
		})))
		must(g.AddEdge("entry", name))
		must(g.AddEdge(name, "join"))
	}
	must(g.AddEdge("join", compose.END))
	r, err := g.Compile(ctx, compose.WithNodeTriggerMode(compose.AllPredecessor))
	must(err)
	in := S{"x": 0}
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.Invoke(ctx, in)
		if err != nil || out["sum"] != 36 {
			b.Fatal(err, out)
		}
	}
}

// BenchmarkEinoW3Router routes on x with a graph branch after the router
// node; inputs alternate x = 0, 1.
func BenchmarkEinoW3Router(b *testing.B) {
	ctx := context.Background()
	g := compose.NewGraph[S, S]()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	same := func(_ context.Context, in S) (S, error) { return S{"x": in["x"]}, nil }
	must(g.AddLambdaNode("entry", compose.InvokableLambda(same)))
	must(g.AddLambdaNode("router", compose.InvokableLambda(same)))
	must(g.AddLambdaNode("A", compose.InvokableLambda(func(_ context.Context, in S) (S, error) { return S{"out": "A"}, nil })))
	must(g.AddLambdaNode("B", compose.InvokableLambda(func(_ context.Context, in S) (S, error) { return S{"out": "B"}, nil })))
	must(g.AddEdge(compose.START, "entry"))
	must(g.AddEdge("entry", "router"))
	must(g.AddBranch("router", compose.NewGraphBranch(func(_ context.Context, in S) (string, error) {
		if in["x"].(int)%2 == 0 {
			return "A", nil
		}
		return "B", nil
	}, map[string]bool{"A": true, "B": true})))
	must(g.AddEdge("A", compose.END))
	must(g.AddEdge("B", compose.END))
	r, err := g.Compile(ctx)
	must(err)
	ins := []S{{"x": 0}, {"x": 1}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := r.Invoke(ctx, ins[i%2])
		if err != nil || out["out"] != []string{"A", "B"}[i%2] {
			b.Fatal(err, out)
		}
	}
}
