package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	strict       bool
	allowScripts bool
	allowPaths   []string
	llmScript    string
	toolScript   string
	store        string
	memory       string

	// allowSkillScripts lets agents run their skills' scripts.
	allowSkillScripts bool
	mcpSessions       string
	telemetryFlags
}

// defaultStore is where runs are saved, relative to the working folder.
const defaultStore = sqlite.DefaultPath

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [FILE]",
		Short: "Run a flow (FILE defaults to ./flow.yaml) and print its result",
		Long: "Run a flow (FILE defaults to ./flow.yaml) and print its result.\n\n" +
			"The definition's warnings are printed on stderr as `troupe validate` prints\n" +
			"them (with --json they are in the output's \"warnings\" instead); with --strict\n" +
			"a definition with warnings is not run (exit code 1).\n\n" +
			"A method with human_feedback asks in the terminal when stdin is one. Otherwise\n" +
			"the run pauses: its flow id, the question and the command that resumes it are\n" +
			"printed on stderr, and troupe exits with code 3. Ctrl-C stops the run and\n" +
			"exits with code 130.",
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
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print {result, outputs, state, trace, usage, warnings} as one JSON object (NaN and infinities as the strings \"NaN\", \"Infinity\", \"-Infinity\")")
	cmd.Flags().BoolVar(&f.strict, "strict", false, "treat the definition's warnings as errors: do not run it")
	cmd.Flags().BoolVar(&f.allowScripts, "allow-scripts", false, "allow script actions (Python) from this trusted definition")
	cmd.Flags().BoolVar(&f.allowSkillScripts, "allow-skill-scripts", false, "let agents run the scripts of the skills they load (run_skill_script), for trusted skills")
	cmd.Flags().StringArrayVar(&f.allowPaths, "allow-path", nil, "let the definition read files (knowledge_sources, crew from_declaration) from this folder too; repeatable")
	cmd.Flags().StringVar(&f.llmScript, "llm-script", "", "answer every model call from this scripted replies file (llm/fake format)")
	cmd.Flags().StringVar(&f.toolScript, "tool-script", "", "register the scripted tools of this file (action/fake format), for agents and tool actions")
	cmd.Flags().StringVar(&f.store, "store", defaultStore, "the SQLite file runs are saved in (persist blocks, pauses)")
	cmd.Flags().StringVar(&f.memory, "memory", defaultMemory, "the SQLite file of the flow's memory (config.memory, memory: true)")
	addMCPFlags(cmd, f)
	addTelemetryFlags(cmd, &f.telemetryFlags)
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
	def, err := loadDefinition(path, stderr, f)
	if err != nil {
		return err
	}
	inputs, err := parseInputs(f.inputs)
	if err != nil {
		return fmt.Errorf("Invalid --inputs JSON: %w", err)
	}
	if inputs, err = checkInputs(def, inputs, stderr); err != nil {
		return err
	}
	s, err := newSession(cmd, f, def)
	if err != nil {
		return err
	}
	defer s.close()
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	res, err := s.engine.Run(ctx, def, inputs)
	return s.finish(ctx, cmd, path, def, res, err)
}

// loadDefinition reads ./.env and the definition at path. It prints the
// definition's diagnostics on stderr as validate does: its errors, and its
// warnings unless they go into the --json output. With --strict, warnings
// fail it.
func loadDefinition(path string, stderr io.Writer, f runFlags) (*flow.Definition, error) {
	loadDotEnv(".env", stderr)
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("Invalid definition path: %s does not exist.", path)
	} else if st.IsDir() {
		return nil, fmt.Errorf("Invalid definition path: %s is not a file.", path)
	}
	def, diags := flow.CheckFile(path)
	if diags.HasErrors() {
		printDiagnostics(stderr, diags)
		return nil, exitError{exitFail}
	}
	if sk := flow.CheckSkills(def, f.allowPaths...); len(sk) > 0 {
		if sk.HasErrors() {
			printDiagnostics(stderr, append(def.Warnings, sk...))
			return nil, exitError{exitFail}
		}
		def.Warnings = append(def.Warnings, sk...)
	}
	if f.strict && len(def.Warnings) > 0 {
		printDiagnostics(stderr, def.Warnings)
		return nil, strictError(path, len(def.Warnings))
	}
	if !f.asJSON {
		printDiagnostics(stderr, def.Warnings)
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
	// closeMCP stops the run's MCP servers.
	closeMCP func()
	tel      *observers
	view     *liveView
}

func newSession(cmd *cobra.Command, f runFlags, def *flow.Definition) (*session, error) {
	stderr := cmd.ErrOrStderr()
	if err := checkMCPFlags(f); err != nil {
		return nil, err
	}
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
	tel, telOpts, err := openTelemetry(f.telemetryFlags, stderr)
	if err != nil {
		return nil, err
	}
	s.tel = tel
	opts := []flow.Option{
		flow.WithScripts(f.allowScripts || scriptsFromEnv()),
		flow.WithStore(s.stores.store(f.store)),
		flow.WithBackend(persistenceType, s.stores.backend),
		flow.WithTools(tools...),
		flow.WithFileRoots(f.allowPaths...),
		flow.WithSkillScripts(f.allowSkillScripts),
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
	opts = append(opts, s.progressOptions(stderr, def)...)
	if mem != nil {
		opts = append(opts, flow.WithMemory(mem.Memory))
	}
	mcpOpt, closeMCP := mcpConnector(stderr, f.mcpSessions)
	opts = append(opts, mcpOpt)
	s.closeMCP = closeMCP
	s.engine = flow.NewEngine(append(opts, telOpts...)...)
	return s, nil
}

func (s *session) close() {
	s.view.stop(nil)
	s.tel.close()
	if s.closeMCP != nil {
		s.closeMCP()
	}
	_ = s.stores.Close()
	if s.memory != nil {
		_ = s.memory.Close()
	}
}

// finish prints the outcome of a run: its result, or on a pause what is
// asked and how to resume (exit code 3), or the error (exit code 1; 130
// when Ctrl-C stopped the run).
func (s *session) finish(ctx context.Context, cmd *cobra.Command, path string, def *flow.Definition, res *flow.Result, err error) error {
	stderr := cmd.ErrOrStderr()
	s.view.stop(err)
	if err != nil {
		if s.flags.asJSON {
			printDiagnostics(stderr, def.Warnings) // no report will hold them
		}
		reportBudget(stderr, err)
		return interrupted(ctx, err)
	}
	out := cmd.OutOrStdout()
	if res.Pending != nil {
		id := res.RunID
		if id == "" {
			id = fmt.Sprint(res.State["id"])
		}
		reportPause(stderr, def.Name, id, res.Pending, resumeCommand(path, id, s.flags))
		if s.flags.asJSON {
			report := newRunReport(def, res)
			report.FlowID, report.Pending = id, res.Pending
			if err := report.write(out); err != nil {
				return err
			}
		}
		return exitError{exitPaused}
	}
	if s.flags.asJSON {
		return newRunReport(def, res).write(out)
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
// are reported (one line each, as CrewAI does) before anything runs, and
// the error is then an exitError.
func checkInputs(def *flow.Definition, inputs map[string]any, stderr io.Writer) (map[string]any, error) {
	if def.State == nil || def.State.JSONSchema == nil {
		return inputs, nil
	}
	sc, err := schema.CompileState(def.State.JSONSchema)
	if err != nil {
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
		return nil, exitError{exitFail} // each is reported above
	}
	if _, err := sc.Conform(merged); err != nil {
		var ve *schema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		for _, fe := range ve.Fields {
			fmt.Fprintf(stderr, "  Invalid input '%s': %s\n", fe.Path, fe.Message)
		}
		return nil, exitError{exitFail}
	}
	return kept, nil
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
