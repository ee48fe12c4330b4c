package flow_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/flow"
)

const reviewYAML = `
schema: crewai.flow/v1
name: Review
state: {type: dict, default: {draft: "  Ship the new search page  "}}
methods:
  clean:
    start: true
    do: {call: code, ref: "review:clean"}
  check:
    listen: clean
    router: true
    emit: [publish, rewrite]
    do: {call: expression, expr: "size(outputs.clean) > 10 ? 'publish' : 'rewrite'"}
  announce:
    listen: publish
    do: {call: expression, expr: "'Published: ' + outputs.clean"}
`

// clean is the Go body of the code method review:clean.
func clean(_ context.Context, in *flow.Input) (any, error) {
	draft, _ := in.State.Value("draft").(string)
	return strings.TrimSpace(draft), nil
}

// A YAML flow runs on an engine that knows its code refs.
func ExampleEngine_Run() {
	def, err := flow.Parse([]byte(reviewYAML), "review.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	eng := flow.NewEngine(flow.WithCode("review:clean", clean))
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

// The same flow built in Go, with the Go function as the method body.
func ExampleNew_run() {
	def, err := flow.New("Review").
		State(map[string]any{"draft": "  Ship the new search page  "}).
		Method("clean", flow.Go(clean)).Start().
		Method("check", flow.Expr("size(outputs.clean) > 10 ? 'publish' : 'rewrite'")).
		ListenTo("clean").Router("publish", "rewrite").
		Method("announce", flow.Expr("'Published: ' + outputs.clean")).ListenTo("publish").
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
