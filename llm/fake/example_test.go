package fake_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func Example() {
	model := fake.New(
		// Asked about the weather, the model calls the tool once...
		fake.Times(1, fake.Match(`(?i)weather`, fake.ToolCalls(fake.Call("get_weather", map[string]any{"city": "Paris"})))),
		// ...then answers from the tool's result.
		fake.Match(`sunny`, fake.Text("It is sunny in Paris.")),
	)
	ctx := context.Background()
	req := &llm.Request{
		Messages: []llm.Message{llm.User("What is the weather in Paris?")},
		Tools:    []llm.ToolSpec{{Name: "get_weather", Description: "Current weather for a city"}},
	}

	resp, err := model.Generate(ctx, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Message.ToolCalls[0]
	fmt.Println(resp.FinishReason, call.ID, call.Name, string(call.Arguments))

	req.Messages = append(req.Messages, resp.Message, llm.ToolResult(call.ID, call.Name, "sunny, 24°C"))
	resp, err = model.Generate(ctx, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	fmt.Println(model.Calls(), "calls;", len(model.Requests()[1].Messages), "messages in the second request")
	// Output:
	// tool_calls call_1 get_weather {"city":"Paris"}
	// It is sunny in Paris.
	// 2 calls; 3 messages in the second request
}

func ExampleParse() {
	model, err := fake.Parse([]byte(`
replies:
  - match: "Follow-up router"
    times: 1
    text: followup
  - json: {category: billing}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for range 2 {
		resp, _ := model.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.User("Follow-up router: choose")}})
		fmt.Println(resp.Text())
	}
	// Output:
	// followup
	// {"category":"billing"}
}
