package llm_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func ExampleParseModel() {
	for _, s := range []string{"openai/gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "ollama/llama3.1"} {
		provider, model := llm.ParseModel(s)
		fmt.Println(provider, model)
	}
	// Output:
	// openai gpt-4o
	// openai gpt-4o-mini
	// anthropic claude-3-5-sonnet
	// ollama llama3.1
}

func ExampleProviders() {
	providers := llm.NewProviders()
	providers.Register("openai", fake.New(fake.Text("Hello from a fake OpenAI")).Factory())

	ctx := context.Background()
	cfg, err := llm.ConfigFromMap(map[string]any{"model": "gpt-4o-mini", "temperature": 0.2})
	if err != nil {
		fmt.Println(err)
		return
	}
	model, err := providers.Resolve(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.User("Hi")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())

	_, err = providers.Resolve(ctx, llm.Config{Model: "groq/llama-3.1-8b"})
	fmt.Println(err != nil)
	// Output:
	// Hello from a fake OpenAI
	// true
}

func ExampleCollect() {
	model := fake.New(fake.Text("streamed, then collected"))
	req := &llm.Request{Messages: []llm.Message{llm.User("Hi")}}
	resp, err := llm.Collect(model.Stream(context.Background(), req))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text(), resp.FinishReason)
	// Output: streamed, then collected stop
}
