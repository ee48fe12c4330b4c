package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/action"
	toolfake "github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/schema"
	"github.com/troupe-dev/troupe/store/sqlite"
)

type runFlags struct {
	inputs       string
	asJSON       bool
	allowScripts bool
	llmScript    string
	toolScript   string
	store        string
	memory       string
}

// defaultStore is where runs are saved, relative to the working folder.
const defaultStore = sqlite.DefaultPath

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [FILE]",
		Short: "Run a flow (FILE defaults to ./flow.yaml) and print its result",
		Long: "Run a flow (FILE defaults to ./flow.yaml) and print its result.\n\n" +
			"A method with human_feedback asks in the terminal when stdin is one. Otherwise\n" +
			"the run pauses: its flow id, the question and the command that resumes it are\n" +
			"printed on stderr, and troupe exits with code 3.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFlow(cmd, flowPath(args), f)
		},
	}
	cmd.Flags().StringVar(&f.inputs, "inputs", "", "kickoff inputs as a JSON object, merged into the state")
	addEngineFlags(cmd, &f)
	return cmd
}

// addEngineFlags adds the flags run and resume share.
func addEngineFlags(cmd *cobra.Command, f *runFlags) {
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print {result, outputs, state, trace, usage} as one JSON object")
	cmd.Flags().BoolVar(&f.allowScripts, "allow-scripts", false, "allow script actions (Python) from this trusted definition")
	cmd.Flags().StringVar(&f.llmScript, "llm-script", "", "answer every model call from this scripted replies file (llm/fake format)")
	cmd.Flags().StringVar(&f.toolScript, "tool-script", "", "register the scripted tools of this file (action/fake format), for agents and tool actions")
	cmd.Flags().StringVar(&f.store, "store", defaultStore, "the SQLite file runs are saved in (persist blocks, pauses)")
	cmd.Flags().StringVar(&f.memory, "memory", defaultMemory, "the SQLite file of the flow's memory (config.memory, memory: true)")
}

// flowPath is the FILE argument, ./flow.yaml by default.
func flowPath(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return "flow.yaml"
}

func runFlow(cmd *cobra.Command, path string, f runFlags) error {
	stderr := cmd.ErrOrStderr()
	def, err := loadDefinition(path, stderr)
	if err != nil {
		return err
	}
	inputs, err := parseInputs(f.inputs)
	if err != nil {
		fmt.Fprintf(stderr, "Invalid --inputs JSON: %v\n", err)
		return exitError{exitFail}
	}
	if inputs, err = checkInputs(def, inputs, stderr); err != nil {
		return exitError{exitFail}
	}
	s, err := newSession(cmd, f, def)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError{exitFail}
	}
	defer s.close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	res, err := s.engine.Run(ctx, def, inputs)
	return s.finish(cmd, path, def, res, err)
}

// loadDefinition reads ./.env and the definition at path, reporting
// problems on stderr.
func loadDefinition(path string, stderr io.Writer) (*flow.Definition, error) {
	loadDotEnv(".env", stderr)
	if st, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "Invalid definition path: %s does not exist.\n", path)
		return nil, exitError{exitFail}
	} else if st.IsDir() {
		fmt.Fprintf(stderr, "Invalid definition path: %s is not a file.\n", path)
		return nil, exitError{exitFail}
	}
	def, err := flow.Load(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitError{exitFail}
	}
	return def, nil
}

// A session is the engine of one run or resume, with the SQLite files it
// saves to and, on a terminal, the person who answers feedback requests.
type session struct {
	flags  runFlags
	stores *stores
	asker  *terminalFeedback // nil when stdin is not a terminal
	memory *fileMemory       // nil when the flow uses no memory
	engine *flow.Engine
}

func newSession(cmd *cobra.Command, f runFlags, def *flow.Definition) (*session, error) {
	stderr := cmd.ErrOrStderr()
	var tools []action.Tool
	if f.toolScript != "" {
		// Before any file is opened, so that a bad script leaves none open.
		var err error
		if tools, err = toolfake.LoadTools(f.toolScript); err != nil {
			return nil, err
		}
	}
	s := &session{flags: f, stores: newStores(f.store)}
	mem, err := openMemory(def, f.memory)
	if err != nil {
		return nil, err
	}
	s.memory = mem
	opts := []flow.Option{
		flow.WithScripts(f.allowScripts || scriptsFromEnv()),
		flow.WithStore(s.stores.store(f.store)),
		flow.WithBackend(persistenceType, s.stores.backend),
		flow.WithTools(tools...),
	}
	if f.llmScript != "" {
		m, err := fake.Load(f.llmScript)
		if err != nil {
			return nil, err
		}
		opts = append(opts, flow.WithLLM(m))
	} else {
		opts = append(opts, modelOptions()...)
	}
	if in := cmd.InOrStdin(); isTerminal(in) {
		s.asker = newTerminalFeedback(in, stderr)
		opts = append(opts, flow.WithFeedback(s.asker))
	} else {
		opts = append(opts, flow.WithFeedback(flow.PendingProvider))
	}
	if !f.asJSON && isTerminal(stderr) {
		opts = append(opts, flow.WithEvents(progress(stderr)))
	}
	if mem != nil {
		opts = append(opts, flow.WithMemory(mem.Memory))
	}
	s.engine = flow.NewEngine(opts...)
	return s, nil
}

func (s *session) close() {
	_ = s.stores.Close()
	if s.memory != nil {
		_ = s.memory.Close()
	}
}

// finish prints the outcome of a run: its result, or on a pause what is
// asked and how to resume (exit code 3), or the error (exit code 1).
func (s *session) finish(cmd *cobra.Command, path string, def *flow.Definition, res *flow.Result, err error) error {
	stderr := cmd.ErrOrStderr()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError{exitFail}
	}
	out := cmd.OutOrStdout()
	report := map[string]any{
		"result":  jsonable(res.Output),
		"outputs": res.Outputs,
		"state":   res.State,
		"trace":   res.Trace,
		"usage":   res.Usage,
	}
	if res.Pending != nil {
		id := res.RunID
		if id == "" {
			id = fmt.Sprint(res.State["id"])
		}
		reportPause(stderr, def.Name, id, res.Pending, resumeCommand(path, id, s.flags))
		if s.flags.asJSON {
			report["flow_id"], report["pending"] = id, res.Pending
			if err := json.NewEncoder(out).Encode(report); err != nil {
				return err
			}
		}
		return exitError{exitPaused}
	}
	if s.flags.asJSON {
		return json.NewEncoder(out).Encode(report)
	}
	fmt.Fprintln(out, formatResult(res.Output))
	return nil
}

func parseInputs(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	v, err := jsondata.Decode([]byte(s))
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("expected an object.")
	}
	return m, nil
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

// progress prints a run's steps on a terminal, and the model's text as it
// streams in when the definition sets config.stream.
func progress(w io.Writer) func(flow.Event) {
	var (
		mu      sync.Mutex
		midLine bool // streamed text did not end its line
	)
	return func(ev flow.Event) {
		var line string
		switch ev.Kind {
		case flow.LLMStream:
			if ev.Text == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprint(w, ev.Text)
			midLine = !strings.HasSuffix(ev.Text, "\n")
			return
		case flow.MethodStarted:
			line = fmt.Sprintf("▶ %s", ev.Method)
		case flow.MethodFinished:
			line = fmt.Sprintf("✔ %s (%s)", ev.Method, ev.Duration.Round(1000))
		case flow.MethodFailed:
			line = fmt.Sprintf("✘ %s: %v", ev.Method, ev.Err)
		case flow.MethodPaused:
			line = fmt.Sprintf("⏸ %s: waiting for feedback", ev.Method)
		default:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if midLine {
			fmt.Fprintln(w)
			midLine = false
		}
		fmt.Fprintln(w, line)
	}
}
