// Package skill reads Agent Skills and gives them to agents.
//
// A skill is a folder holding a SKILL.md file: YAML front matter (name,
// description, and optionally license, compatibility, metadata and
// allowed-tools) between two "---" lines, then Markdown instructions. The
// folder may hold scripts/, references/ and assets/ too.
//
// The package parses and validates SKILL.md files with every problem placed
// at its line and column, under one of two rule sets ([Spec], the Agent
// Skills specification as its reference validator checks it, and [CrewAI],
// the rules CrewAI agents load skills with); resolves the items of a
// skills: list (folders of skills, inline SKILL.md texts, @org/name
// references) into a [Set]; renders the prompt blocks CrewAI gives agents;
// and, through [Attach], gives an [action.AgentSpec] the skill section of
// its system prompt and the tools that load a skill's instructions
// (load_skill), read its files (read_skill_file) and, when the host allows
// it, run its scripts (run_skill_script), enforcing the allowed-tools of
// the skills an agent has loaded.
//
// Skills come from projects and may be untrusted: files are read only from
// inside a skill's own folder, and scripts never run unless the host opts
// in.
//
// Start with [Load] and [Parse] (load.go, parse.go), then [Attach]
// (attach.go), which gives a skill set to an agent.
//
// It imports action, llm and internal packages; it must not import flow.
package skill
