package action

// FailureMCPError is the [ToolFailure] reason of an MCP tool whose server
// answered with an error result (isError), as CrewAI names it.
const FailureMCPError = "mcp_error"

// A ReportedFailure is an error a tool returns when what it called reported
// a failure of its own, such as an MCP server's error result. The agent
// loop tells the model Observation() as it is, instead of its usual
// "Error: the tool failed: ..." text, and records Reason() in the
// [ToolFailure].
type ReportedFailure interface {
	error
	// Reason is the ToolFailure's reason, such as FailureMCPError.
	Reason() string
	// Observation is the text the model sees.
	Observation() string
}

// An ArgumentChecker is a [Tool] whose Call checks its arguments itself,
// returning an [*ArgumentError] when they do not fit, so the agent loop
// does not check them against Spec().Parameters first. The schema can then
// guide the model (load_skill's enum of the skills) while the tool answers
// a wrong value its own way, and MCP tools drop null arguments before
// checking, as CrewAI does.
type ArgumentChecker interface {
	Tool
	// ChecksArguments marks the tool; it does nothing.
	ChecksArguments()
}
