package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/mcp/client"
)

// mcpConnector is the MCP client of a run: warnings on stderr, sessions per
// agent execution or (--mcp-sessions run) for the whole run.
func mcpConnector(stderr io.Writer, sessions string) (flow.Option, func()) {
	opts := client.Options{Logger: warnings(stderr)}
	if sessions == "run" {
		opts.Scope = client.PerConnector
	}
	c := client.New(opts)
	return flow.WithMCP(c), func() { _ = c.Close() }
}

// addMCPFlags adds the MCP flags of run and resume.
func addMCPFlags(cmd *cobra.Command, f *runFlags) {
	cmd.Flags().StringVar(&f.mcpSessions, "mcp-sessions", "execution", "how long MCP sessions last: execution (one per agent execution) or run (shared by the run's agents)")
}

// checkMCPFlags rejects unknown --mcp-sessions values.
func checkMCPFlags(f runFlags) error {
	if f.mcpSessions != "execution" && f.mcpSessions != "run" && f.mcpSessions != "" {
		return usageError{fmt.Errorf("--mcp-sessions %q: want execution or run", f.mcpSessions)}
	}
	return nil
}
