package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/action"
	toolfake "github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/agent"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/llm/providers"
	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/postgres"
)

// agentFlags are the flags of troupe agent run, chat and resume.
type agentFlags struct {
	input      string
	inputs     string
	session    string
	asJSON     bool
	trace      bool
	llmScript  string
	toolScript string
	store      string
	approve    bool
	reject     bool
	reason     string
}

func newAgentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run declarative single agents (troupe.agent/v1 files)",
		Long: "agent runs one tool-using agent described by a YAML or JSON file\n" +
			"(see docs/agents.md). troupe validate checks such files too.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAgentRunCmd(), newAgentChatCmd(), newAgentResumeCmd())
	return cmd
}

func addAgentFlags(cmd *cobra.Command, f *agentFlags) {
	cmd.Flags().StringVar(&f.inputs, "inputs", "", "the JSON object the system prompt's ${inputs...} read (replaces a saved session's)")
	cmd.Flags().StringVar(&f.session, "session", "", "continue (or start) the session with this id")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the turn's result as JSON")
	cmd.Flags().BoolVar(&f.trace, "trace", false, "print each step as a JSON line on stderr")
	cmd.Flags().StringVar(&f.llmScript, "llm-script", "", "answer every model call from this scripted replies file (llm/fake format)")
	cmd.Flags().StringVar(&f.toolScript, "tool-script", "", "register the scripted tools of this file (action/fake format)")
	cmd.Flags().StringVar(&f.store, "store", defaultStore, "where sessions are saved: a SQLite file, or a postgres:// DSN")
}

func newAgentRunCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "run FILE --input TEXT",
		Short: "Play one turn of an agent and print its answer",
		Long: "run adds --input to the session (a new one unless --session names one),\n" +
			"plays the agent until it answers, and prints the answer and the session id.\n" +
			"A tool call that needs approval asks on a terminal; without one, the\n" +
			"session is saved and the command exits with 3, printing how to resume.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.input == "" {
				return usageError{errors.New("--input is required")}
			}
			return withAgent(cmd, args[0], f, func(ctx context.Context, a *agentSession) error {
				res, err := a.runner.Turn(ctx, a.sess, f.input)
				return a.report(ctx, cmd, res, err)
			})
		},
	}
	cmd.Flags().StringVar(&f.input, "input", "", "the user's message")
	addAgentFlags(cmd, &f)
	return cmd
}

func newAgentResumeCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "resume FILE --session ID --approve|--reject",
		Short: "Answer a tool call that waits for approval and continue the turn",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.session == "" || f.approve == f.reject {
				return usageError{errors.New("--session and one of --approve or --reject are required")}
			}
			return withAgent(cmd, args[0], f, func(ctx context.Context, a *agentSession) error {
				res, err := a.runner.Resume(ctx, a.sess, agent.Decision{Approve: f.approve, Reason: f.reason})
				return a.report(ctx, cmd, res, err)
			})
		},
	}
	cmd.Flags().BoolVar(&f.approve, "approve", false, "let the call run")
	cmd.Flags().BoolVar(&f.reject, "reject", false, "refuse the call; the model is told")
	cmd.Flags().StringVar(&f.reason, "reason", "", "why the call is rejected, told to the model")
	addAgentFlags(cmd, &f)
	return cmd
}

func newAgentChatCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "chat FILE",
		Short: "Talk with an agent in the terminal (Ctrl-D ends)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAgent(cmd, args[0], f, func(ctx context.Context, a *agentSession) error {
				return a.chat(ctx, cmd)
			})
		},
	}
	addAgentFlags(cmd, &f)
	return cmd
}

// agentSession is an agent file loaded with its runner, store and session.
type agentSession struct {
	path   string
	flags  agentFlags
	runner *agent.Runner
	st     store.Store
	sess   *agent.Session
	lines  *bufio.Scanner // the terminal's lines, nil without one
}

// withAgent loads the file, its tools and model, opens the store and the
// session, calls play, and closes what it opened.
func withAgent(cmd *cobra.Command, path string, f agentFlags, play func(context.Context, *agentSession) error) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	stderr := cmd.ErrOrStderr()
	tools, _ := action.NewTools()
	if f.toolScript != "" {
		ts, err := toolfake.LoadTools(f.toolScript)
		if err != nil {
			return err
		}
		if tools, err = action.NewTools(ts...); err != nil {
			return err
		}
	}
	def, ds := agent.CheckFile(path, agent.WithTools(tools))
	printDiagnostics(stderr, flow.Diagnostics(ds))
	if ds.HasErrors() {
		return exitError{exitFail}
	}
	var model llm.LLM
	if f.llmScript != "" {
		m, err := fake.Load(f.llmScript)
		if err != nil {
			return err
		}
		model = m
	} else {
		cfg := llm.Config{Model: def.Model.ModelName, Temperature: def.Model.Temperature, MaxTokens: def.Model.MaxTokens}
		m, err := providers.Default(os.Getenv).Resolve(ctx, cfg)
		if err != nil {
			return err
		}
		model = m
	}
	cfg := agent.Config{Model: model, Tools: tools}
	if f.trace {
		enc := json.NewEncoder(stderr)
		var mu sync.Mutex // parallel tool calls report at once
		cfg.Observer = func(s agent.Step) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(s)
		}
	}
	runner, err := agent.NewRunner(def, cfg)
	if err != nil {
		return err
	}
	st, closeStore, err := openSessionStore(ctx, f.store)
	if err != nil {
		return err
	}
	defer closeStore()
	a := &agentSession{path: path, flags: f, runner: runner, st: st}
	if in := cmd.InOrStdin(); isTerminal(in) {
		a.lines = bufio.NewScanner(in)
	}
	if f.session != "" {
		a.sess, err = agent.LoadSession(ctx, st, f.session, def.Name)
		if errors.Is(err, agent.ErrNoSession) {
			a.sess, err = nil, nil
		}
		if err != nil {
			return err
		}
	}
	inputs, err := parseInputs(f.inputs)
	if err != nil {
		return usageError{err}
	}
	switch {
	case a.sess == nil:
		a.sess = runner.NewSession(f.session, inputs)
	case f.inputs != "":
		a.sess.Inputs = inputs // a saved session takes new inputs when given
	}
	return play(ctx, a)
}

// report saves the session and prints a turn's result; a paused turn asks
// for approval on a terminal and otherwise exits with 3.
func (a *agentSession) report(ctx context.Context, cmd *cobra.Command, res *agent.Result, err error) error {
	res, err = a.approve(ctx, cmd.ErrOrStderr(), res, err)
	if serr := agent.SaveSession(ctx, a.st, a.sess); serr != nil {
		return errors.Join(err, serr)
	}
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if a.flags.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Session string `json:"session"`
			*agent.Result
		}{a.sess.ID, res}); err != nil {
			return err
		}
	} else if res.Status != agent.StatusPaused {
		fmt.Fprintln(out, res.Answer)
		if res.Reason != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "(%s: %s)\n", res.Status, res.Reason)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "session: %s\n", a.sess.ID)
	}
	if res.Status == agent.StatusPaused {
		a.reportPause(cmd.ErrOrStderr())
		return exitError{exitPaused}
	}
	return nil
}

// approve asks the person at the terminal, if any, about each call a turn
// pauses on, and resumes the turn with the answer. End of input leaves the
// turn paused.
func (a *agentSession) approve(ctx context.Context, w io.Writer, res *agent.Result, err error) (*agent.Result, error) {
	for err == nil && res.Status == agent.StatusPaused && a.lines != nil {
		p := a.sess.Pending
		fmt.Fprintf(w, "Approve %s %s? [y/N] ", p.Call.Name, string(p.Call.Arguments))
		if !a.lines.Scan() {
			fmt.Fprintln(w)
			a.lines = nil
			break
		}
		d := agent.Decision{Reason: "the person said no"}
		if ans := strings.ToLower(strings.TrimSpace(a.lines.Text())); ans == "y" || ans == "yes" {
			d = agent.Decision{Approve: true}
		}
		res, err = a.runner.Resume(ctx, a.sess, d)
	}
	return res, err
}

func (a *agentSession) reportPause(w io.Writer) {
	p := a.sess.Pending
	fmt.Fprintf(w, "Agent %s paused: %s %s needs approval.\n", a.runner.Definition().Name, p.Call.Name, string(p.Call.Arguments))
	fmt.Fprintf(w, "  session: %s\n", a.sess.ID)
	args := []string{"troupe", "agent", "resume", a.path, "--session", a.sess.ID}
	if a.flags.store != defaultStore {
		args = append(args, "--store", a.flags.store)
	}
	if a.flags.llmScript != "" {
		args = append(args, "--llm-script", a.flags.llmScript)
	}
	if a.flags.toolScript != "" {
		args = append(args, "--tool-script", a.flags.toolScript)
	}
	fmt.Fprintln(w, "Resume with:")
	fmt.Fprintf(w, "  %s --approve\n", shellJoin(args))
	fmt.Fprintf(w, "  %s --reject --reason '...'\n", shellJoin(args))
}

// chat reads the user's lines until end of input, playing a turn for each.
func (a *agentSession) chat(ctx context.Context, cmd *cobra.Command) error {
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	lines := a.lines
	if lines == nil {
		lines = bufio.NewScanner(cmd.InOrStdin())
		a.lines = lines
	}
	fmt.Fprintf(errw, "Talking with %s (session %s); Ctrl-D ends.\n", a.runner.Definition().Name, a.sess.ID)
	for {
		fmt.Fprint(errw, "> ")
		if !lines.Scan() {
			fmt.Fprintln(errw)
			return nil
		}
		text := strings.TrimSpace(lines.Text())
		if text == "" {
			continue
		}
		res, err := a.runner.Turn(ctx, a.sess, text)
		res, err = a.approve(ctx, errw, res, err)
		if serr := agent.SaveSession(ctx, a.st, a.sess); serr != nil {
			return errors.Join(err, serr)
		}
		if err != nil {
			return err
		}
		if res.Status == agent.StatusPaused {
			a.reportPause(errw)
			return exitError{exitPaused}
		}
		fmt.Fprintln(out, res.Answer)
	}
}

// checkAgentFile validates path as an agent file when it is one (for
// troupe validate); ok is false for other documents.
func checkAgentFile(path string) (flow.Diagnostics, bool) {
	data, err := os.ReadFile(path)
	if err != nil || !agent.IsDocument(data) {
		return nil, false
	}
	_, ds := agent.Check(data, path)
	return flow.Diagnostics(ds), true
}

// openSessionStore opens where sessions are kept: a PostgreSQL database
// for a postgres:// DSN, else a SQLite file.
func openSessionStore(ctx context.Context, where string) (store.Store, func(), error) {
	if strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://") {
		pg, err := postgres.Open(ctx, where)
		if err != nil {
			return nil, nil, err
		}
		return pg, func() { _ = pg.Close() }, nil
	}
	stores := newStores(where)
	st, err := stores.get(ctx, where, true)
	if err != nil {
		_ = stores.Close()
		return nil, nil, err
	}
	return st, func() { _ = stores.Close() }, nil
}
