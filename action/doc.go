// Package action holds what flow methods do beyond plain expressions: tools,
// agents and crews, and scripts.
//
// Start with [Tool] and [NewTool] (tool.go), then [RunAgent] (agent.go) and
// its loop (loop.go with native tool calls, react.go with ReAct text), then
// [RunCrew] (crew.go) and guardrails (guardrail.go). Every model and tool
// call of an agent passes through an [Interceptor] (intercept.go), and
// agents report [Event] values (event.go). What a run reads from its
// surroundings can be replaced for replay: the time and waits ([Clock],
// clock.go) and how a round of tool calls runs ([ToolRound], toolround.go).
//
// It imports llm, schema and internal packages; it must not import flow
// (flow imports it), storage drivers or provider SDKs.
package action
