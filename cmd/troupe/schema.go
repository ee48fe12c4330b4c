package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/agent"
	"github.com/troupe-dev/troupe/flow"
)

func newSchemaCmd() *cobra.Command {
	var agentFormat bool
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the crewai.flow/v1 format",
		Long: "schema prints a JSON Schema (draft 2020-12) of flow definition files on\n" +
			"stdout. Save it and point your editor at it, for example with a first\n" +
			"line such as\n\n" +
			"  # yaml-language-server: $schema=./crewai-flow.schema.json\n\n" +
			"The schema checks a file's shape; troupe validate checks everything.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			schema := flow.JSONSchema
			if agentFormat {
				schema = agent.JSONSchema
			}
			out, err := schema()
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out); err != nil {
				return fmt.Errorf("writing the schema: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&agentFormat, "agent", false, "print the schema of troupe.agent/v1 agent files instead")
	return cmd
}
