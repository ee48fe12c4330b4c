// Command troupe validates and runs CrewAI crewai.flow/v1 declarative flows.
//
// Usage:
//
//	troupe validate [--json] [--strict] FILE...
//	                                   check definitions, report every problem
//	troupe run [FILE] [--inputs JSON] [--json] [--strict] [--allow-path DIR]
//	           [--llm-script FILE] [--tool-script FILE] [--allow-skill-scripts]
//	                                   run a flow (FILE defaults to flow.yaml)
//	troupe resume [FILE] --id ID [--feedback TEXT]
//	                                   continue a paused or interrupted run
//	troupe runs [--status S] [--json]  list stored runs
//	troupe plot [--format dot] FILE    draw a flow as Mermaid or DOT
//	troupe init NAME                   create a project folder with a flow
//	troupe schema                      print the JSON Schema of the format
//	troupe skills validate|list|prompt PATH...
//	                                   check Agent Skills, list them, show their catalog
//	troupe mcp tools [URL...] [--stdio "COMMAND ARGS"] [--json]
//	                                   list MCP servers' tools as agents see them
//
// Exit codes: 0 success, 1 an invalid definition or a failed command,
// 2 a usage error, 3 a run paused for human feedback, 130 a run stopped by
// Ctrl-C (SIGINT).
//
// Errors are printed on stderr as one line "troupe: ...", definitions'
// diagnostics as FILE:LINE:COL: error|warning: PATH: MESSAGE.
//
// Start with main.go (the commands are registered there, one file each);
// the CLI is a user of the library: nothing imports it, and it reaches
// flows only through the public API of flow and its neighbours.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// subcommands returns every subcommand. Each lives in its own file and is
// added here, once.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newValidateCmd(),
		newRunCmd(),
		newResumeCmd(),
		newRunsCmd(),
		newPlotCmd(),
		newInitCmd(),
		newSchemaCmd(),
		newSkillsCmd(),
		newMCPCmd(),
		newAgentCmd(),
		newTraceCmd(),
	}
}

// exitError ends a command with an exit code, once the command has said
// why on stderr.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a command line that does not make sense; it exits with 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }

// commandError is an error returned by a command's own work, as opposed to
// one from parsing the command line; it exits with 1.
type commandError struct{ err error }

func (e commandError) Error() string { return e.err.Error() }

func (e commandError) Unwrap() error { return e.err }

// markCommandErrors wraps the RunE of cmd and its subcommands, so that run
// can tell their errors from command line errors.
func markCommandErrors(cmd *cobra.Command) {
	if orig := cmd.RunE; orig != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := orig(c, args); err != nil {
				return commandError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markCommandErrors(sub)
	}
}

// run executes the troupe command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := handOver(args, stdin, stdout, stderr); ok {
		return code
	}
	root := &cobra.Command{
		Use:   "troupe",
		Short: "Validate and run CrewAI declarative flows (crewai.flow/v1)",
		Long: "troupe loads, validates and runs flows written in CrewAI's declarative\n" +
			"crewai.flow/v1 format (YAML or JSON).",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return usageError{errors.New("a command is required")}
		},
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(subcommands()...)
	markCommandErrors(root)

	err := root.Execute()
	var (
		exit  exitError
		usage usageError
		cmdEr commandError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "troupe: interrupted")
		return exitInterrupted
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &usage), !errors.As(err, &cmdEr):
		// Errors that did not come from a command's work come from
		// parsing the command line: unknown commands, flags, arguments.
		fmt.Fprintf(stderr, "troupe: %v\nRun 'troupe --help' for usage.\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "troupe: %v\n", cmdEr.err)
		return exitFail
	}
}
