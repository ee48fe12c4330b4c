package action

import (
	"encoding/json"
	"strings"
)

// The texts of the agent's prompts. They are Troupe's own; only the ReAct
// keywords (Thought, Action, Action Input, Observation, Final Answer) follow
// the convention models are trained on.
const (
	reactStop          = "\nObservation:"
	finalAnswerMarker  = "Final Answer:"
	postToolReminder   = "Look at the tool result. If you have what the task needs, give your Final Answer; otherwise use the next tool."
	forceFinalAnswer   = "You have used all the steps you are allowed. Do not call any more tools: reply now with your best complete final answer to the task."
	repeatedCallNote   = "\n\nNote: you already called this tool with exactly these arguments and got the same result. Do not repeat the call; use the result or try something else."
	schemaRetryMessage = "Your answer does not match the required JSON Schema: %s\nReply again with only the JSON value, matching the schema, and nothing else."
)

// systemPrompt introduces the agent and, for the ReAct protocol, its tools.
func systemPrompt(spec *AgentSpec, react bool, tools []*toolEntry) string {
	var b strings.Builder
	b.WriteString("You are ")
	b.WriteString(spec.Role)
	b.WriteString(".")
	if spec.Backstory != "" {
		b.WriteString(" ")
		b.WriteString(spec.Backstory)
	}
	if spec.Goal != "" {
		b.WriteString("\nYour goal: ")
		b.WriteString(spec.Goal)
	}
	if react {
		writeReActInstructions(&b, tools)
	}
	b.WriteString(spec.SkillPrompt)
	return b.String()
}

// writeReActInstructions describes tools and the ReAct format.
func writeReActInstructions(b *strings.Builder, tools []*toolEntry) {
	if len(tools) > 0 {
		b.WriteString("\n\nYou can use these tools, and no others:\n\n")
		writeToolList(b, tools)
		b.WriteString("\n\nTo use a tool, reply in exactly this format and then stop:\n\n")
		b.WriteString("Thought: what you need and why\nAction: the tool name, one of [")
		for i, t := range tools {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.spec.Name)
		}
		b.WriteString("]\nAction Input: the arguments as one JSON object\n\n")
		b.WriteString("The tool's result comes back to you as an Observation. When you know the answer, reply:\n\n")
		b.WriteString("Thought: I know the final answer\nFinal Answer: your complete answer to the task")
	}
}

// writeToolList describes tools for the ReAct protocol.
func writeToolList(b *strings.Builder, tools []*toolEntry) {
	for i, t := range tools {
		s := t.spec
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Tool: ")
		b.WriteString(s.Name)
		b.WriteString("\nDescription: ")
		b.WriteString(s.Description)
		b.WriteString("\nArguments (JSON Schema): ")
		args, _ := json.Marshal(s.Parameters)
		if s.Parameters == nil {
			args = []byte("{}")
		}
		b.Write(args)
	}
}

// taskPrompt is the user message: the task, what is expected, the schema of
// a structured answer, the context and recalled memories.
func taskPrompt(task AgentTask, responseSchema map[string]any, memories []string, react, hasTools bool) string {
	var b strings.Builder
	b.WriteString("Task: ")
	b.WriteString(task.Input)
	if task.ExpectedOutput != "" {
		b.WriteString("\n\nExpected output: ")
		b.WriteString(task.ExpectedOutput)
		b.WriteString("\nYour final answer must be the complete content itself, not a summary of it.")
	}
	if responseSchema != nil {
		doc, _ := json.Marshal(responseSchema)
		b.WriteString("\n\nGive your final answer as JSON matching this JSON Schema, with no code fences and no other text:\n")
		b.Write(doc)
	}
	if task.Context != "" {
		b.WriteString("\n\nContext for the task:\n")
		b.WriteString(task.Context)
	}
	if len(memories) > 0 {
		b.WriteString("\n\nRelevant memories:\n")
		for _, m := range memories {
			b.WriteString("- ")
			b.WriteString(m)
			b.WriteString("\n")
		}
	}
	switch {
	case react && hasTools:
		b.WriteString("\n\nBegin, following the format above.\n\nThought:")
	case !hasTools:
		b.WriteString("\n\nGive your complete answer.")
	}
	return strings.TrimRight(b.String(), " \n")
}
