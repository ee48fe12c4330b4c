// Package agent loads, validates and runs declarative single agents: one
// YAML (or JSON) file per agent holding its system prompt, model, tools,
// step limit, error policy and optional state machine, with extends and
// overrides to derive one agent from another.
//
// Load (or Parse, Check) reads a file and reports every problem at once,
// each with file, line, column and path; a [Runner] then plays turns of a
// conversation with any llm.LLM and tools from a registry, keeping what a
// multi-turn conversation needs in a [Session].
//
// The package sits beside flow: it imports action, cel, llm, schema, store
// and internal packages, never flow.
package agent
