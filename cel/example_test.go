package cel_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/cel"
)

func ExampleEnv_Compile() {
	env, err := cel.NewEnv()
	if err != nil {
		panic(err)
	}
	prg, err := env.Compile("${ state.score >= 80 ? 'pass' : 'retry' }")
	if err != nil {
		panic(err)
	}
	out, err := prg.Eval(context.Background(), &cel.Vars{State: map[string]any{"score": int64(91)}})
	fmt.Println(out, err)
	// Output: pass <nil>
}

func ExampleEnv_CompileTemplate() {
	env, err := cel.NewEnv()
	if err != nil {
		panic(err)
	}
	vars := &cel.Vars{State: map[string]any{"n": int64(3), "ok": true, "d": map[string]any{"a": int64(1)}}}

	mixed, _ := env.CompileTemplate("n=${state.n}; ok=${state.ok}; d=${state.d}")
	text, _ := mixed.Render(context.Background(), vars)
	fmt.Println(text)

	typed, _ := env.CompileTemplate("${state.n}")
	n, _ := typed.Render(context.Background(), vars)
	fmt.Printf("%T %v\n", n, n)
	// Output:
	// n=3; ok=true; d={"a": 1}
	// int64 3
}

func ExampleEnv_CompileValue() {
	env, err := cel.NewEnv()
	if err != nil {
		panic(err)
	}
	with, err := env.CompileValue(map[string]any{
		"search_query": "${outputs.begin + ' agents'}",
		"prefix":       "found",
	})
	if err != nil {
		panic(err)
	}
	out, _ := with.Render(context.Background(), &cel.Vars{Outputs: map[string]any{"begin": "hello"}})
	fmt.Println(out)
	// Output: map[prefix:found search_query:hello agents]
}

func ExampleCheckTemplate() {
	for _, p := range cel.CheckTemplate("methods.search.do.with.search_query", "a ${foo.bar} b", []string{"state", "outputs"}) {
		fmt.Println(p.Code, p.Offset)
		fmt.Println(p.Message)
	}
	// Output:
	// cel-unknown-root 4
	// unknown CEL root at methods.search.do.with.search_query: 'foo'; allowed roots: outputs, state. Reference flow data through one of those roots, for example state.field or outputs.step_name.
}
