package flow_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/troupe-dev/troupe/flow"
)

// bigDefinition writes a YAML definition of about size bytes: a chain of
// methods mixing tool calls with templates, expressions, each loops and
// agents, each listening to the one before.
func bigDefinition(size int) []byte {
	var b strings.Builder
	b.WriteString("schema: crewai.flow/v1\nname: Big\nstate:\n  type: dict\n  default: {topic: AI, items: [1, 2, 3]}\nmethods:\n")
	for i := 0; b.Len() < size; i++ {
		trigger := "start: true"
		if i > 0 {
			trigger = fmt.Sprintf("listen: m%d", i-1)
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `  m%d:
    %s
    description: Search the topic and keep the ticket number.
    do:
      call: tool
      ref: tools:Search
      with:
        query: "Research ${state.topic} for step %d, ticket ${state.items[0] + %d}"
        options: {limit: %d, strict: true, tags: ["${state.topic}", plain, "${outputs.m%d}"]}
`, i, trigger, i, i, i%50, max(i-1, 0))
		case 1:
			fmt.Fprintf(&b, `  m%d:
    %s
    do: {call: expression, expr: "size(state.items) > %d ? state.topic + '-%d' : 'none'"}
`, i, trigger, i%7, i)
		case 2:
			fmt.Fprintf(&b, `  m%d:
    %s
    do:
      call: each
      in: state.items
      do:
        - name: double
          if: item > 1
          action: {call: expression, expr: item * 2}
        - name: note
          action: {call: code, ref: mod:note, with: {text: "item ${item} of ${state.topic}"}}
`, i, trigger)
		default:
			fmt.Fprintf(&b, `  m%d:
    %s
    router: true
    emit: [go, stop]
    do:
      call: agent
      with:
        role: Reviewer
        goal: Decide whether to go on
        backstory: Careful.
        input: |
          Review ${outputs.m%d} about ${state.topic}
          and answer go or stop.
`, i, trigger, i-1)
		}
	}
	return []byte(b.String())
}

func BenchmarkLoad1MB(b *testing.B) {
	data := bigDefinition(1 << 20)
	if _, err := flow.Parse(data, "big.yaml"); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := flow.Parse(data, "big.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadSmall(b *testing.B) {
	data := []byte(`schema: crewai.flow/v1
name: Small
state: {type: dict, default: {topic: AI agents}}
methods:
  start: {start: true, do: {call: expression, expr: state.topic}}
  shout: {listen: start, do: {ref: "m:shout", with: {text: "${outputs.start}!"}}}
`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := flow.Parse(data, "small.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBigDefinitionLoads(t *testing.T) {
	data := bigDefinition(64 << 10)
	def, err := flow.Parse(data, "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Methods) < 100 {
		t.Fatalf("only %d methods", len(def.Methods))
	}
}

// reviewFile is examples/review/flow.yaml, read once.
func reviewFile(b *testing.B) []byte {
	data, err := os.ReadFile("../examples/review/flow.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkLoadCompileRun is what a service pays per request when it
// parses a definition per request: parse, compile and run
// examples/review/flow.yaml. "shared" runs on one long-lived Engine,
// "fresh" makes an Engine per request; "parse", "compile" and "run" are
// the three parts on the shared engine.
func BenchmarkLoadCompileRun(b *testing.B) {
	data := reviewFile(b)
	ctx := context.Background()
	want := "Published: Ship the new search page"
	b.Run("shared", func(b *testing.B) {
		eng := flow.NewEngine()
		b.ReportAllocs()
		for b.Loop() {
			def, err := flow.Parse(data, "flow.yaml")
			if err != nil {
				b.Fatal(err)
			}
			p, err := eng.Compile(def)
			if err != nil {
				b.Fatal(err)
			}
			res, err := p.Run(ctx, nil)
			if err != nil || res.Output != want {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			def, err := flow.Parse(data, "flow.yaml")
			if err != nil {
				b.Fatal(err)
			}
			res, err := flow.NewEngine().Run(ctx, def, nil)
			if err != nil || res.Output != want {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := flow.Parse(data, "flow.yaml"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compile", func(b *testing.B) {
		eng := flow.NewEngine()
		def, err := flow.Parse(data, "flow.yaml")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := eng.Compile(def); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		def, err := flow.Parse(data, "flow.yaml")
		if err != nil {
			b.Fatal(err)
		}
		p, err := flow.NewEngine().Compile(def)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Run(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
