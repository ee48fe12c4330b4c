package client_test

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

// A Go host gives a flow's agents MCP tools with a connector. Here the
// server lives in the same process (an in-memory transport); a real host
// leaves Options.Transport unset, and the agents' mcps entries (or
// flow.WithMCPServers) say where their servers are.
func Example() {
	server := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "getForecast", Description: "Tomorrow's weather for a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			City string `json:"city"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny in " + in.City}}}, nil, nil
		})
	conn := client.New(client.Options{Transport: func(ctx context.Context, _ mcp.Server) (sdk.Transport, error) {
		t1, t2 := sdk.NewInMemoryTransports()
		_, err := server.Connect(ctx, t1, nil)
		return t2, err
	}})
	defer conn.Close()

	def, err := flow.Parse([]byte(`schema: crewai.flow/v1
name: Weather
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Forecaster
        goal: Tell the weather
        backstory: Checks before answering.
        input: "Will it rain in Lyon tomorrow?"
        mcps: [{command: weather-server}]
`), "weather.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	model := fake.New(
		fake.Match("Sunny in Lyon", fake.Text("No rain: it will be sunny in Lyon.")),
		fake.ToolCalls(fake.Call("weather_server_get_forecast", map[string]any{"city": "Lyon"})),
	)
	res, err := flow.NewEngine(flow.WithLLM(model), flow.WithMCP(conn)).Run(context.Background(), def, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outputs["ask"].(map[string]any)["raw"])
	// Output: No rain: it will be sunny in Lyon.
}
