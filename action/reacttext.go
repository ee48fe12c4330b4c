package action

import (
	"encoding/json"
	"strings"

	"github.com/troupe-dev/troupe/llm"
)

// ReActStop is the stop sequence of the ReAct text protocol: a model stops
// before writing the observation itself.
const ReActStop = reactStop

// A ReActStep is one reply of the ReAct text protocol, for loops other
// than this package's (package agent): a final answer, or a tool call.
type ReActStep struct {
	Final   string
	IsFinal bool
	Tool    string
	Args    json.RawMessage
}

// ParseReAct reads a ReAct reply as the agent loop does: a reply with a
// "Final Answer:" is final, one with "Action:" and "Action Input:" calls a
// tool, and anything else is taken as the final answer as it is.
func ParseReAct(text string) ReActStep {
	s := parseReAct(text)
	return ReActStep{Final: s.final, IsFinal: s.isFinal, Tool: s.tool, Args: s.args}
}

// ReActInstructions describes tools and the ReAct format, as the agent loop
// appends them to the system prompt of a model without native tool calls.
func ReActInstructions(tools []llm.ToolSpec) string {
	entries := make([]*toolEntry, len(tools))
	for i, s := range tools {
		entries[i] = &toolEntry{spec: s}
	}
	var b strings.Builder
	writeReActInstructions(&b, entries)
	return b.String()
}
