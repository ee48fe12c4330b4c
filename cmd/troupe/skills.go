package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/skill"
)

func newSkillsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "Validate, list and show Agent Skills (folders with a SKILL.md)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newSkillsValidateCmd(), newSkillsListCmd(), newSkillsPromptCmd())
	return cmd
}

func newSkillsValidateCmd() *cobra.Command {
	var asJSON, crewai, unicodeNames bool
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check skills against the Agent Skills specification",
		Long: "validate checks each PATH, a skill folder or its SKILL.md, against the Agent\n" +
			"Skills specification as its reference validator (skills-ref) checks it, and\n" +
			"reports every problem at once. A valid skill prints \"Valid skill: PATH\" on\n" +
			"stdout; an invalid one prints \"Validation failed for PATH:\" on stderr,\n" +
			"then one \"  - FILE:LINE:COL: MESSAGE\" line per problem. Warnings (an\n" +
			"allowed-tools pattern, a long SKILL.md) do not fail a skill.\n\n" +
			"Troupe is stricter than the reference validator where the specification\n" +
			"is: names are ASCII (--unicode-names accepts any letter, as skills-ref\n" +
			"does), and metadata maps strings to strings. --crewai checks with the\n" +
			"rules CrewAI agents load skills with instead.\n\n" +
			"It exits with 0 when every skill is valid, 1 otherwise. --json prints\n" +
			"[{path, valid, problems: [{file, line, column, message}], warnings}].",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mode := skill.Spec
			if crewai {
				mode = skill.CrewAI
			}
			var opts []skill.Option
			if unicodeNames {
				opts = append(opts, skill.UnicodeNames())
			}
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			reports := make([]skillReport, 0, len(args))
			failed := false
			for _, path := range args {
				_, probs := skill.Load(path, mode, opts...)
				r := newSkillReport(path, probs)
				reports = append(reports, r)
				failed = failed || !r.Valid
				if !asJSON {
					r.print(stdout, stderr)
				}
			}
			if asJSON {
				if err := writeJSONValue(stdout, reports); err != nil {
					return err
				}
			}
			if failed {
				return exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as a JSON array on stdout")
	cmd.Flags().BoolVar(&crewai, "crewai", false, "check with CrewAI's rules (PyYAML types, its name pattern) instead of the specification's")
	cmd.Flags().BoolVar(&unicodeNames, "unicode-names", false, "accept names with non-ASCII letters and digits, as skills-ref does")
	return cmd
}

// A skillReport is the result of validating one skill path.
type skillReport struct {
	Path     string         `json:"path"`
	Valid    bool           `json:"valid"`
	Problems []problemEntry `json:"problems"`
	Warnings []problemEntry `json:"warnings"`
}

// A problemEntry is one problem in --json output.
type problemEntry struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func newSkillReport(path string, probs skill.Problems) skillReport {
	r := skillReport{Path: path, Valid: !probs.HasErrors(), Problems: []problemEntry{}, Warnings: []problemEntry{}}
	for _, p := range probs {
		e := problemEntry{File: p.File, Line: p.Line, Column: p.Column, Message: p.Message}
		if p.Severity == skill.Warning {
			r.Warnings = append(r.Warnings, e)
		} else {
			r.Problems = append(r.Problems, e)
		}
	}
	return r
}

// print writes the report as skills-ref does, warnings after.
func (r skillReport) print(stdout, stderr io.Writer) {
	line := func(e problemEntry, warning bool) {
		prefix := ""
		if e.Line > 0 {
			prefix = fmt.Sprintf("%s:%d:%d: ", e.File, e.Line, e.Column)
		}
		if warning {
			prefix += "warning: "
		}
		fmt.Fprintf(stderr, "  - %s%s\n", prefix, e.Message)
	}
	if r.Valid {
		fmt.Fprintf(stdout, "Valid skill: %s\n", r.Path)
		if len(r.Warnings) > 0 {
			fmt.Fprintf(stderr, "Warnings for %s:\n", r.Path)
		}
	} else {
		fmt.Fprintf(stderr, "Validation failed for %s:\n", r.Path)
		for _, e := range r.Problems {
			line(e, false)
		}
	}
	for _, e := range r.Warnings {
		line(e, true)
	}
}

func newSkillsListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list PATH...",
		Short: "List the skills at or one level below each PATH",
		Long: "list prints the catalog an agent with skills: [PATH...] gets: the name,\n" +
			"description and location (its SKILL.md) of each skill PATH is, or each\n" +
			"skill folder directly inside PATH, read with CrewAI's rules. Skills that\n" +
			"fail to load are skipped with a warning on stderr, as agents skip them.\n" +
			"--json prints [{name, description, location}].",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := discover(args, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			entries := make([]catalogEntry, 0, len(set.Entries))
			for _, c := range skill.Catalog(set.Entries) {
				entries = append(entries, catalogEntry{Name: c.Label, Description: c.Skill.Description, Location: location(c.Skill)})
			}
			if asJSON {
				return writeJSONValue(cmd.OutOrStdout(), entries)
			}
			if len(entries) == 0 {
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tDESCRIPTION\tLOCATION")
			for _, e := range entries {
				fmt.Fprintf(w, "%s\t%s\t%s\n", e.Name, strings.Join(strings.Fields(e.Description), " "), e.Location)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as a JSON array")
	return cmd
}

// A catalogEntry is one skill of list's output.
type catalogEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Location    string `json:"location"`
}

func newSkillsPromptCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "prompt PATH...",
		Short: "Print the <available_skills> block an agent with these skills sees",
		Long: "prompt prints the catalog block that an agent with skills: [PATH...] finds\n" +
			"at the end of its system prompt, word for word as CrewAI writes it (the\n" +
			"loader named load_skill). It prints nothing when no skill is found.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := discover(args, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if cat := skill.Catalog(set.Entries); len(cat) > 0 {
				fmt.Fprintln(cmd.OutOrStdout(), skill.CatalogBlock(skill.LoaderName, cat))
			}
			return nil
		},
	}
}

// discover resolves paths as an agent's skills list, relative to the
// working directory, printing what it skips on stderr.
func discover(paths []string, stderr io.Writer) (*skill.Set, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	items := make([]skill.Item, len(paths))
	for i, p := range paths {
		items[i] = skill.Item{Value: p, Trusted: true, Label: p}
	}
	set := (&skill.Resolver{Base: wd}).Resolve(items)
	if err := set.Err(); err != nil {
		var ie *skill.ItemError
		if errors.As(err, &ie) {
			return nil, errors.New(ie.Note.Message)
		}
		return nil, err
	}
	for _, n := range set.Notes {
		if n.Code != skill.NoteIsSkill {
			fmt.Fprintf(stderr, "warning: %s: %s\n", paths[n.Item], n.Message)
		}
	}
	return set, nil
}

// location is a skill's SKILL.md, relative to the working directory when
// it is inside it.
func location(s *skill.Skill) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, s.File); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return s.File
}

// writeJSONValue writes v as indented JSON.
func writeJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}
