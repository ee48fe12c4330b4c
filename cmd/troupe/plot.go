package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
)

func newPlotCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "plot FILE",
		Short: "Draw a flow's graph as Mermaid (default) or DOT",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			def, diags := flow.CheckFile(args[0])
			if diags.HasErrors() {
				printDiagnostics(cmd.ErrOrStderr(), diags)
				return exitError{exitFail}
			}
			switch format {
			case "mermaid":
				fmt.Fprint(cmd.OutOrStdout(), def.Mermaid())
			case "dot":
				fmt.Fprint(cmd.OutOrStdout(), def.DOT())
			default:
				return fmt.Errorf("unknown --format %q: use mermaid or dot", format)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "mermaid or dot")
	return cmd
}
