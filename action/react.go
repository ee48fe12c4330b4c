package action

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// reactAction matches a ReAct tool call: "Action: name" then "Action Input:
// arguments", tolerating numbered keywords ("Action 1:") and extra space.
var reactAction = regexp.MustCompile(`(?s)Action\s*\d*\s*:\s*(.*?)\s*Action\s*\d*\s*Input\s*\d*\s*:\s*(.*)`)

// A reactStep is one parsed ReAct reply: a final answer, or a tool call.
type reactStep struct {
	final   string
	isFinal bool
	tool    string
	args    json.RawMessage
}

// parseReAct reads a ReAct reply leniently, as CrewAI does: a reply with a
// "Final Answer:" is final (even when it also names an action), one with
// "Action:" and "Action Input:" calls a tool, and anything else is taken as
// the final answer as it is.
func parseReAct(text string) reactStep {
	if i := strings.LastIndex(text, finalAnswerMarker); i >= 0 {
		return reactStep{isFinal: true, final: trimFence(strings.TrimSpace(text[i+len(finalAnswerMarker):]))}
	}
	m := reactAction.FindStringSubmatch(text)
	if m == nil {
		return reactStep{isFinal: true, final: strings.TrimSpace(text)}
	}
	tool := strings.Trim(m[1], " \t\r\n*`\"'")
	input := m[2]
	if i := strings.Index(input, "Observation:"); i >= 0 {
		input = input[:i] // the model ran on past its turn
	}
	return reactStep{tool: tool, args: reactArgs(input)}
}

// reactArgs extracts the JSON arguments of an Action Input: the first JSON
// value when the text starts with one (code fences and trailing words
// dropped), else the text itself, which then fails as invalid JSON.
func reactArgs(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	if s == "" {
		return json.RawMessage("{}")
	}
	if s[0] == '{' || s[0] == '[' {
		dec := json.NewDecoder(strings.NewReader(s))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil {
			return raw
		}
	}
	return json.RawMessage(s)
}

// trimFence drops a trailing code fence left unbalanced by cutting the text.
func trimFence(s string) string {
	if strings.Count(s, "```")%2 == 1 && strings.HasSuffix(s, "```") {
		return strings.TrimSpace(strings.TrimSuffix(s, "```"))
	}
	return s
}

// extractJSON finds the JSON value in a model's structured answer: the text
// itself, the inside of a code fence, or the outermost {...} in it.
func extractJSON(text string) []byte {
	t := bytes.TrimSpace([]byte(text))
	if json.Valid(t) {
		return t
	}
	s := string(t)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			if in := bytes.TrimSpace([]byte(rest[:j])); json.Valid(in) {
				return in
			}
		}
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		return []byte(s[i : j+1])
	}
	return t
}
