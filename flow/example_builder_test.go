package flow_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/troupe-dev/troupe/flow"
)

// A flow built in Go is the same Definition the YAML gives, and writes
// back to YAML.
func ExampleNew() {
	def, err := flow.New("Greeting").
		State(map[string]any{"name": "Ada"}).
		Method("greet", flow.Expr(`"Hello, " + state.name`)).Start().
		Method("measure", flow.Expr(`size(outputs.greet) > 10 ? "long" : "short"`)).
		ListenTo("greet").Router("long", "short").
		Method("trim", flow.Each("[outputs.greet]",
			flow.NewStep("first", flow.Expr(`item.split(",")[0]`)).When(`item != ""`),
		)).ListenTo("long").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := def.YAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// schema: crewai.flow/v1
	// name: Greeting
	// state:
	//   type: dict
	//   default:
	//     name: Ada
	// methods:
	//   greet:
	//     start: true
	//     do:
	//       call: expression
	//       expr: '"Hello, " + state.name'
	//   measure:
	//     listen: greet
	//     router: true
	//     emit: [long, short]
	//     do:
	//       call: expression
	//       expr: 'size(outputs.greet) > 10 ? "long" : "short"'
	//   trim:
	//     listen: long
	//     do:
	//       call: each
	//       in: '[outputs.greet]'
	//       do:
	//         - name: first
	//           if: item != ""
	//           action:
	//             call: expression
	//             expr: item.split(",")[0]
}

// A Go function can be a method's body. Such a flow runs as is, but only
// writes to YAML or JSON once the body also has a ref to register it under.
func ExampleGo() {
	count := flow.Go(func(ctx context.Context, in flow.Input) (any, error) {
		n, _ := in.State.Value("n").(int64)
		in.State.Set("n", n+1)
		return n + 1, nil
	})
	def, err := flow.New("Counter").
		State(map[string]any{"n": 0}).
		Method("count", count).Start().
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = def.YAML()
	fmt.Println(errors.Is(err, flow.ErrNotSerializable))
	fmt.Println(err)
	// Output:
	// true
	// flow: definition cannot be serialised: methods.count.do: the body is a Go function with no ref; set Action.Ref to the name it is registered under (WithCode) to serialise it
}

// Build reports problems with the loader's messages; a built flow has no
// file or line to point at.
func ExampleBuilder_Build() {
	_, err := flow.New("Broken").
		Method("begin", flow.Expr("ouputs.x")).Start().
		Build()
	fmt.Println(err)
	// Output:
	// flow: error: methods.begin.do.expr: unknown CEL root at methods.begin.do.expr: 'ouputs'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.
}
