package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// progressFlag is --progress: never, auto or always.
type progressFlag string

func (p *progressFlag) String() string { return string(*p) }
func (p *progressFlag) Type() string   { return "never|auto|always" }
func (p *progressFlag) Set(s string) error {
	switch s {
	case "never", "auto", "always":
		*p = progressFlag(s)
		return nil
	}
	return fmt.Errorf("want never, auto or always, got %q", s)
}

func addProgressFlag(cmd *cobra.Command, p *progressFlag) {
	*p = "auto"
	cmd.Flags().Var(p, "progress", "the live view of the run on stderr: auto (on a terminal, without --json), always, or never (one line per step on a terminal, as before)")
}

// liveView runs the live view of one run on w.
type liveView struct {
	prog *tea.Program
	done chan struct{}
	once sync.Once
}

// wantsLiveView reports whether the session shows the live view: always
// when asked, never with never; with auto on a terminal without --json,
// unless a person may be asked for feedback on the same terminal.
func wantsLiveView(f runFlags, stderrTerminal, asksOnTerminal bool) bool {
	switch f.progress {
	case "always":
		return true
	case "never":
		return false
	}
	return !f.asJSON && stderrTerminal && !asksOnTerminal
}

// startLiveView starts the view of def on w and returns the engine option
// that feeds it.
func startLiveView(w io.Writer, def *flow.Definition, prices llm.Prices) (*liveView, flow.Option) {
	m := newProgressModel(def, prices, time.Now())
	v := &liveView{done: make(chan struct{})}
	opts := []tea.ProgramOption{tea.WithOutput(w), tea.WithInput(nil), tea.WithoutSignalHandler()}
	if !isTerminal(w) {
		// --progress=always on a pipe: no terminal to ask for its size.
		opts = append(opts, tea.WithWindowSize(m.width, 40))
	}
	v.prog = tea.NewProgram(m, opts...)
	go func() {
		defer close(v.done)
		_, _ = v.prog.Run()
	}()
	return v, flow.WithEvents(func(ev flow.Event) {
		select {
		case <-v.done:
		default:
			v.prog.Send(eventMsg(ev))
		}
	})
}

// stop ends the view, leaving its last frame on the terminal, once the
// run returned err.
func (v *liveView) stop(err error) {
	if v == nil {
		return
	}
	v.once.Do(func() {
		v.prog.Send(endMsg{err: err})
		<-v.done
	})
}

// progressOptions shows the run's progress on stderr: the live view when
// wanted, else on a terminal one line per step (with --progress=never, or
// when a person may answer feedback there), else nothing.
func (s *session) progressOptions(stderr io.Writer, def *flow.Definition) []flow.Option {
	f := s.flags
	terminal := isTerminal(stderr)
	if wantsLiveView(f, terminal, s.asker != nil && asksFeedback(def)) {
		view, opt := startLiveView(stderr, def, s.tel.prices)
		s.view = view
		return []flow.Option{opt}
	}
	if !f.asJSON && terminal {
		return []flow.Option{flow.WithEvents(progress(stderr))}
	}
	return nil
}

// asksFeedback reports whether some method of def asks for human feedback.
func asksFeedback(def *flow.Definition) bool {
	for _, m := range def.Methods {
		if m.HumanFeedback != nil {
			return true
		}
	}
	return false
}
