package action_test

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
)

func ExampleRunAgent() {
	type weatherIn struct {
		City string `json:"city"`
	}
	weather := action.MustNewTool("get_weather", "Current weather for a city",
		func(ctx context.Context, in weatherIn) (string, error) { return "sunny in " + in.City, nil })
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("get_weather", map[string]any{"city": "Paris"}))),
		fake.Match("sunny in Paris", fake.Text("It is sunny in Paris.")),
	)
	spec := &action.AgentSpec{Role: "Assistant", Goal: "Answer questions", Backstory: "Helpful.", Model: model, Tools: []action.Tool{weather}}
	out, err := action.RunAgent(context.Background(), spec, action.AgentTask{Input: "What is the weather in Paris?"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Raw)
	fmt.Println(out.Usage.Requests, "requests")
	// Output:
	// It is sunny in Paris.
	// 2 requests
}

func ExampleRunCrew() {
	model := fake.New(
		fake.Match("Task: Research AI", fake.Text("AI agents plan and use tools.")),
		fake.Match("Task: Summarize", fake.Text("Agents act.")),
	)
	crew := &action.CrewSpec{
		Name: "research",
		Agents: []*action.AgentSpec{
			{Name: "researcher", Role: "{topic} Researcher", Goal: "Research {topic}", Backstory: "Thorough.", Model: model},
		},
		Tasks: []*action.TaskSpec{
			{Name: "research", Description: "Research {topic}", ExpectedOutput: "Findings", Agent: "researcher"},
			{Name: "summary", Description: "Summarize the findings", ExpectedOutput: "One line", Agent: "researcher"},
		},
	}
	out, err := action.RunCrew(context.Background(), crew, map[string]any{"topic": "AI"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Raw)
	fmt.Println(out.TasksOutput[0].Agent, "/", out.TasksOutput[0].Summary)
	// Output:
	// Agents act.
	// AI Researcher / Research AI...
}
