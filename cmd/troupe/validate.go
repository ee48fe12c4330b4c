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
	var asJSON, strict bool
	var allowPaths []string
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check flow definitions and report every problem",
		Long: "validate loads each definition (YAML or JSON; - reads standard input) and\n" +
			"reports every problem, one per line on stderr, as\n" +
			"FILE:LINE:COL: error|warning: PATH: MESSAGE\n" +
			"and prints FILE: ok on stdout for each file without errors.\n\n" +
			"It exits with 0 when no file has an error (warnings are printed but pass;\n" +
			"with --strict they fail too) and 1 otherwise. With --json it prints a JSON\n" +
			"array of the diagnostics {file, line, column, path, severity, code, message}\n" +
			"on stdout instead.\n\n" +
			"It also reads the skills the definition's agents and crews name (skills:),\n" +
			"as troupe run will: a path that is not a folder, or leads outside the\n" +
			"definition's folder and the --allow-path folders, is an error; skills that\n" +
			"agents would skip are warnings.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			all := flow.Diagnostics{}
			failed, warned := false, 0
			for _, path := range args {
				diags := check(cmd.InOrStdin(), path, allowPaths)
				all = append(all, diags...)
				warnings := len(diags.Warnings())
				bad := diags.HasErrors() || strict && warnings > 0
				failed = failed || bad
				if !diags.HasErrors() {
					warned += warnings
				}
				if asJSON {
					continue
				}
				printDiagnostics(stderr, diags)
				if !bad {
					fmt.Fprintf(stdout, "%s: ok%s\n", displayName(path), warningNote(warnings))
				}
			}
			if asJSON {
				if err := writeJSON(stdout, all); err != nil {
					return err
				}
			}
			if strict && warned > 0 {
				return fmt.Errorf("%s, and --strict makes warnings errors", plural(warned, "warning"))
			}
			if failed {
				return exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diagnostics as a JSON array on stdout")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings as errors (exit code 1)")
	cmd.Flags().StringArrayVar(&allowPaths, "allow-path", nil, "let the definition's skills paths lead into this folder too, as troupe run --allow-path does; repeatable")
	return cmd
}

// displayName names a definition path in validate's output.
func displayName(path string) string {
	if path == "-" {
		return stdinName
	}
	return path
}

// warningNote is " (2 warnings)", or "" for none.
func warningNote(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + plural(n, "warning") + ")"
}

// check loads one definition, from stdin when path is "-", and, when it
// has no error, the skills it names.
func check(stdin io.Reader, path string, allowPaths []string) flow.Diagnostics {
	var def *flow.Definition
	var diags flow.Diagnostics
	if ds, ok := checkAgentFile(path); ok {
		return ds
	}
	if path != "-" {
		def, diags = flow.CheckFile(path)
	} else {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return flow.Diagnostics{{File: stdinName, Severity: flow.SeverityError, Code: "read_error",
				Message: fmt.Sprintf("cannot read the definition: %v", err)}}
		}
		def, diags = flow.Check(data, stdinName)
	}
	if def == nil || diags.HasErrors() {
		return diags
	}
	return append(diags, flow.CheckSkills(def, allowPaths...)...)
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
