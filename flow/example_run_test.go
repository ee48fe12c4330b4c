package flow_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/flow"
)

// reviewYAML is examples/review/flow.yaml.
const reviewYAML = `
schema: crewai.flow/v1
name: Review
state: {type: dict, default: {draft: "  Ship the new search page  "}}
methods:
  clean:
    start: true
    do: {call: expression, expr: state.draft.trim()}
  check:
    listen: clean
    router: true
    emit: [publish, rewrite]
    do: {call: expression, expr: "size(outputs.clean) > 10 ? 'publish' : 'rewrite'"}
  announce:
    listen: publish
    do: {call: expression, expr: "'Published: ' + outputs.clean"}
  send_back:
    listen: rewrite
    do: {call: expression, expr: "'Too short to publish: ' + outputs.clean"}
`

// clean does in Go what the YAML's first method does in CEL.
func clean(_ context.Context, in flow.Input) (any, error) {
	draft, _ := in.State.Value("draft").(string)
	return strings.TrimSpace(draft), nil
}

// A service compiles a definition once and runs the Program for every
// request, concurrently if need be.
func ExampleEngine_Compile() {
	def, err := flow.Parse([]byte(reviewYAML), "review.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	prog, err := flow.NewEngine().Compile(def)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, draft := range []string{"  Ship the new search page  ", " typo "} {
		res, err := prog.Run(context.Background(), map[string]any{"draft": draft})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Output)
	}
	// Output:
	// Published: Ship the new search page
	// Too short to publish: typo
}

// A YAML flow runs on an engine.
func ExampleEngine_Run() {
	def, err := flow.Parse([]byte(reviewYAML), "review.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	eng := flow.NewEngine()
	res, err := eng.Run(context.Background(), def, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	fmt.Println(res.Trace)
	// Output:
	// Published: Ship the new search page
	// [clean check announce]
}

// The same flow built in Go, with a Go function as the first method's body.
func ExampleNew_run() {
	def, err := flow.New("Review").
		State(map[string]any{"draft": "  Ship the new search page  "}).
		Method("clean", flow.Go(clean)).Start().
		Method("check", flow.Expr("size(outputs.clean) > 10 ? 'publish' : 'rewrite'")).
		ListenTo("clean").Router("publish", "rewrite").
		Method("announce", flow.Expr("'Published: ' + outputs.clean")).ListenTo("publish").
		Method("send_back", flow.Expr("'Too short to publish: ' + outputs.clean")).ListenTo("rewrite").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := flow.NewEngine().Run(context.Background(), def, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	// Output:
	// Published: Ship the new search page
}
