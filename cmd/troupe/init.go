package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

func newInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init NAME",
		Short: "Create a project folder with a runnable flow.yaml and an authoring guide",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			folder := strings.ToLower(strings.NewReplacer(" ", "_", "-", "_").Replace(name))
			words := strings.NewReplacer("_", " ", "-", " ").Replace(name)
			flowName := strings.ReplaceAll(cases.Title(language.Und, cases.NoLower).String(words), " ", "")
			if _, err := os.Stat(folder); err == nil {
				return fmt.Errorf("Folder %s already exists.", folder)
			}
			files := []struct{ name, body string }{
				{"flow.yaml", strings.ReplaceAll(initFlow, "{{flow_name}}", flowName)},
				{"AGENTS.md", initGuide},
				{"README.md", strings.ReplaceAll(initReadme, "{{name}}", name)},
				{".gitignore", ".env\n.troupe/\n"},
			}
			if err := os.MkdirAll(folder, 0o755); err != nil {
				return err
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(folder, f.name), []byte(f.body), 0o644); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			from := ""
			if folder != name {
				from = fmt.Sprintf(" (the folder name for %q)", name)
			}
			fmt.Fprintf(out, "Created %s/%s with the flow %s:\n", folder, from, flowName)
			for _, f := range files {
				fmt.Fprintf(out, "  %s\n", filepath.Join(folder, f.name))
			}
			fmt.Fprintf(out, "Try: cd %s && troupe run\n", folder)
			return nil
		},
	}
}

const initFlow = `schema: crewai.flow/v1
name: {{flow_name}}
description: A declarative flow.
state: {type: dict, default: {topic: AI agents}}
methods:
  start: {start: true, do: {call: expression, expr: state.topic}}
`

const initReadme = `# {{name}}

A flow in CrewAI's crewai.flow/v1 format, run with Troupe.

    troupe validate flow.yaml     # check it
    troupe run                    # run flow.yaml
    troupe run --inputs '{"topic": "robots"}'
    troupe plot flow.yaml         # draw it (Mermaid)

Agent and crew methods need a model: set OPENAI_API_KEY (or ANTHROPIC_API_KEY
and TROUPE_MODEL=anthropic/claude-sonnet-4-5) in .env, or answer every call
from a script with --llm-script replies.yaml.
`

const initGuide = `# Writing this flow: a guide for AI assistants

This project is a Troupe flow in CrewAI's crewai.flow/v1 format (flow.yaml).
Check every change with ` + "`troupe validate flow.yaml`" + `; it names the line,
the path and the fix of each problem.

## Shape

- Top level: schema: crewai.flow/v1, name, optional description, state,
  config, persist, methods (in the order they should be read).
- Every method has exactly one do action and a trigger: start: true, or
  listen: <method or router outcome>, or {and: [...]} / {or: [...]}.
- Method and each-step names match ^[A-Za-z_][A-Za-z0-9_]*$. A method never
  listens to its own name.

## Actions (do)

- expression: {call: expression, expr: "state.topic"}; CEL over state and
  outputs. Results never change state.
- code: {call: code, ref: "module:Name", with: {...}}; a Go handler the host
  registered under that ref.
- tool: {call: tool, ref: ToolName, with: {...}}.
- agent: {call: agent, with: {role, goal, backstory, input: "${...}", tools, llm}}.
- crew: {call: crew, with: {agents: {...}, tasks: [...], inputs: {...}}};
  agent and task texts use {placeholders} filled from the crew inputs.
- each: {call: each, in: state.rows, do: [{name: step, if: "...", action: {...}}]};
  inside steps, item is the current element and outputs.<step> an earlier step.
- script runs Python and is off unless the host allows it.

## Data

- ${...} in with, inputs and agent input is CEL. A string that is only
  ${expr} keeps the value's type; mixed text renders JSON.
- outputs.<method> is the latest output of a method that has run; use
  has(outputs.m) when it may not have.
- Agent outputs: outputs.m.raw (text), outputs.m.pydantic (structured).
  Crew outputs: outputs.m.raw, outputs.m.tasks_output[i].raw.

## Routers

- router: true with emit: [a, b]; the result (trimmed) must be one of emit
  (case-insensitive match); listeners use listen: a.
`
