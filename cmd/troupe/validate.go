package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
)

// stdinName names the definition read from standard input in diagnostics.
const stdinName = "<stdin>"

func newValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check flow definitions and report every problem",
		Long: "validate loads each definition (YAML or JSON; - reads standard input) and\n" +
			"reports every problem, one per line on stderr, as\n" +
			"FILE:LINE:COL: error|warning: PATH: MESSAGE\n\n" +
			"It exits with 0 when no file has an error (warnings are printed but pass)\n" +
			"and 1 otherwise. With --json it prints a JSON array of the diagnostics\n" +
			"{file, line, column, path, severity, code, message} on stdout instead.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			all := flow.Diagnostics{}
			for _, path := range args {
				all = append(all, check(cmd.InOrStdin(), path)...)
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), all); err != nil {
					return err
				}
			} else {
				for _, d := range all {
					fmt.Fprintln(cmd.ErrOrStderr(), d.String())
				}
			}
			if all.HasErrors() {
				return exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diagnostics as a JSON array on stdout")
	return cmd
}

// check loads one definition, from stdin when path is "-".
func check(stdin io.Reader, path string) flow.Diagnostics {
	if path != "-" {
		_, diags := flow.CheckFile(path)
		return diags
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return flow.Diagnostics{{File: stdinName, Severity: flow.SeverityError, Code: "read_error",
			Message: fmt.Sprintf("cannot read the definition: %v", err)}}
	}
	_, diags := flow.Check(data, stdinName)
	return diags
}

func writeJSON(w io.Writer, diags flow.Diagnostics) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(diags); err != nil {
		return fmt.Errorf("writing the diagnostics: %w", err)
	}
	return nil
}
