package agent

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/troupe-dev/troupe/llm"
)

// A Session is one conversation with an agent: its messages and its
// state-machine state, kept between turns (and between processes, through
// a SessionStore).
type Session struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	// Inputs are what the system prompt's ${inputs...} templates read.
	Inputs map[string]any `json:"inputs,omitempty"`
	// Messages is the conversation without the system prompt.
	Messages []llm.Message `json:"messages"`
	// State is the current state-machine state.
	State string `json:"state,omitempty"`
	// Calls counts the calls of each tool, for max_calls.
	Calls map[string]int `json:"calls,omitempty"`
	// Pending is set while a tool call waits for a person's approval.
	Pending *Pending `json:"pending,omitempty"`
}

// Pending is a tool call waiting for approval, and where the turn stands.
type Pending struct {
	Call llm.ToolCall `json:"call"`
	// Rest are the calls of the same model reply after Call.
	Rest []llm.ToolCall `json:"rest,omitempty"`
	// Step is the turn's model-call count when it paused.
	Step int `json:"step"`
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
