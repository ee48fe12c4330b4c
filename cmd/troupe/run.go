package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/schema"
)

type runFlags struct {
	inputs       string
	asJSON       bool
	allowScripts bool
	llmScript    string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [FILE]",
		Short: "Run a flow (FILE defaults to ./flow.yaml) and print its result",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "flow.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			return runFlow(cmd, path, f)
		},
	}
	cmd.Flags().StringVar(&f.inputs, "inputs", "", "kickoff inputs as a JSON object, merged into the state")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print {result, outputs, state, trace, usage} as one JSON object")
	cmd.Flags().BoolVar(&f.allowScripts, "allow-scripts", false, "allow script actions (Python) from this trusted definition")
	cmd.Flags().StringVar(&f.llmScript, "llm-script", "", "answer every model call from this scripted replies file (llm/fake format)")
	return cmd
}

func runFlow(cmd *cobra.Command, path string, f runFlags) error {
	stderr := cmd.ErrOrStderr()
	fail := func(format string, args ...any) error {
		fmt.Fprintf(stderr, format+"\n", args...)
		return exitError{1}
	}
	loadDotEnv(".env")
	if st, err := os.Stat(path); err != nil {
		return fail("Invalid definition path: %s does not exist.", path)
	} else if st.IsDir() {
		return fail("Invalid definition path: %s is not a file.", path)
	}
	def, err := flow.Load(path)
	if err != nil {
		return fail("%v", err)
	}
	inputs, err := parseInputs(f.inputs)
	if err != nil {
		return fail("Invalid --inputs JSON: %v", err)
	}
	if inputs, err = checkInputs(def, inputs, stderr); err != nil {
		return exitError{1}
	}
	opts := []flow.Option{flow.WithScripts(f.allowScripts || scriptsFromEnv())}
	if f.llmScript != "" {
		m, err := fake.Load(f.llmScript)
		if err != nil {
			return fail("%v", err)
		}
		opts = append(opts, flow.WithLLM(m))
	} else {
		opts = append(opts, modelOptions()...)
	}
	if !f.asJSON && isTerminal(os.Stderr) {
		opts = append(opts, flow.WithEvents(progress(stderr)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := flow.NewEngine(opts...).Run(ctx, def, inputs)
	if err != nil {
		return fail("%v", err)
	}
	out := cmd.OutOrStdout()
	if f.asJSON {
		enc := json.NewEncoder(out)
		return enc.Encode(map[string]any{
			"result":  jsonable(res.Output),
			"outputs": res.Outputs,
			"state":   res.State,
			"trace":   res.Trace,
			"usage":   res.Usage,
		})
	}
	fmt.Fprintln(out, formatResult(res.Output))
	return nil
}

func scriptsFromEnv() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION")))
	return v == "1" || v == "true" || v == "yes"
}

func parseInputs(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("expected an object.")
	}
	return numbers(m).(map[string]any), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}

// checkInputs applies CrewAI's CLI rules for structured state: unknown keys
// are dropped with a did-you-mean, missing required fields and bad values
// are reported before anything runs.
func checkInputs(def *flow.Definition, inputs map[string]any, stderr io.Writer) (map[string]any, error) {
	if def.State == nil || def.State.JSONSchema == nil {
		return inputs, nil
	}
	sc, err := schema.CompileState(def.State.JSONSchema)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, err
	}
	kept := map[string]any{}
	known := map[string]bool{}
	for _, p := range sc.Properties() {
		known[p.Name] = true
	}
	keys := make([]string, 0, len(inputs))
	for k := range inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "id" && !known[k] {
			msg := fmt.Sprintf("  Ignoring unknown input '%s' — not in the flow's state schema.", k)
			if c, ok := sc.Closest(k); ok {
				msg += fmt.Sprintf(" Did you mean '%s'?", c)
			}
			fmt.Fprintln(stderr, msg)
			continue
		}
		kept[k] = inputs[k]
	}
	if _, restoring := kept["id"]; restoring {
		return kept, nil
	}
	merged := sc.Defaults()
	if merged == nil {
		merged = map[string]any{}
	}
	for k, v := range def.State.Default {
		merged[k] = v
	}
	for k, v := range kept {
		merged[k] = v
	}
	bad := false
	for _, name := range sc.Missing(merged) {
		msg := fmt.Sprintf("  Missing required input '%s'", name)
		for _, p := range sc.Properties() {
			if p.Name == name && p.Description != "" {
				msg += " — " + p.Description
			}
		}
		fmt.Fprintln(stderr, msg)
		bad = true
	}
	if bad {
		return nil, errors.New("missing inputs")
	}
	if _, err := sc.Conform(merged); err != nil {
		var ve *schema.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Fields {
				fmt.Fprintf(stderr, "  Invalid input '%s': %s\n", fe.Path, fe.Message)
			}
		} else {
			fmt.Fprintln(stderr, err)
		}
		return nil, err
	}
	return kept, nil
}

// formatResult prints a result as CrewAI's CLI does: its raw text when it
// has one, else JSON.
func formatResult(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func jsonable(v any) any {
	if m, ok := v.(interface{ Map() map[string]any }); ok {
		return m.Map()
	}
	return v
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func progress(w io.Writer) func(flow.Event) {
	return func(ev flow.Event) {
		switch ev.Kind {
		case flow.MethodStarted:
			fmt.Fprintf(w, "▶ %s\n", ev.Method)
		case flow.MethodFinished:
			fmt.Fprintf(w, "✔ %s (%s)\n", ev.Method, ev.Duration.Round(1000))
		case flow.MethodFailed:
			fmt.Fprintf(w, "✘ %s: %v\n", ev.Method, ev.Err)
		}
	}
}

// loadDotEnv sets variables from a .env file, overriding the environment as
// CrewAI's CLI does. A missing file is not an error.
func loadDotEnv(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		os.Setenv(strings.TrimSpace(k), v)
	}
}
