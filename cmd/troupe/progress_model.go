package main

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// The live view of a run (troupe run --progress): a bubbletea model fed
// with the run's events. It shows each method with its state, elapsed
// time, tokens and cost, the agent and tool activity under it, streamed
// model text, and a summary line when the run ends.

// methodState is what the view shows of a method.
type methodState int

const (
	methodWaiting methodState = iota
	methodRunning
	methodDone
	methodFailed
	methodPaused
	methodSkipped
)

// methodView is one method's line and the activity under it.
type methodView struct {
	name     string
	state    methodState
	started  time.Time
	elapsed  time.Duration // set once it ended
	usage    llm.Usage
	cost     float64
	calls    int
	activity []string // the latest agent and tool lines, newest last
	stream   string   // the latest line of streamed text
	err      string
}

// maxActivity bounds the activity lines kept under a method.
const maxActivity = 3

// Messages of the view.
type (
	eventMsg flow.Event
	tickMsg  time.Time
	// endMsg ends the view: the run returned err (nil when it finished).
	endMsg struct{ err error }
)

// progressModel is the view's state.
type progressModel struct {
	flow    string
	methods []*methodView
	byName  map[string]*methodView
	prices  llm.Prices
	start   time.Time
	now     time.Time
	width   int
	plain   bool // no colors (tests, dumb terminals)
	ended   bool
	endErr  error
	calls   int
	usage   llm.Usage
	cost    float64
	priced  bool // every model call had a price
	// models are the models of the model calls under way, by their
	// started event: the one the agent asked for, which prices name.
	models map[int64]string
}

func newProgressModel(def *flow.Definition, prices llm.Prices, now time.Time) *progressModel {
	m := &progressModel{flow: def.Name, byName: map[string]*methodView{}, prices: prices, start: now, now: now,
		width: 100, priced: true, models: map[int64]string{}}
	for _, md := range def.Methods {
		mv := &methodView{name: md.Name}
		m.methods = append(m.methods, mv)
		m.byName[md.Name] = mv
	}
	return m
}

// tick refreshes elapsed times while the run goes.
func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *progressModel) Init() tea.Cmd { return tick() }

func (m *progressModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case eventMsg:
		m.event(flow.Event(msg))
	case tickMsg:
		m.now = time.Time(msg)
		if !m.ended {
			return m, tick()
		}
	case tea.WindowSizeMsg:
		if msg.Width > 0 {
			m.width = msg.Width
		}
	case endMsg:
		m.end(msg.err, time.Now())
		return m, tea.Quit
	}
	return m, nil
}

// event updates the view with one event of the run.
func (m *progressModel) event(ev flow.Event) {
	if !ev.Time.IsZero() {
		m.now = ev.Time
	}
	mv := m.byName[ev.Method]
	switch ev.Kind {
	case flow.MethodStarted:
		if mv != nil {
			mv.state, mv.started, mv.err, mv.stream = methodRunning, ev.Time, "", ""
		}
	case flow.MethodFinished, flow.MethodFailed, flow.MethodPaused:
		if mv == nil {
			return
		}
		mv.elapsed = ev.Duration
		mv.state = map[flow.EventKind]methodState{flow.MethodFinished: methodDone, flow.MethodFailed: methodFailed, flow.MethodPaused: methodPaused}[ev.Kind]
		if ev.Err != nil {
			mv.err = firstLine(ev.Err.Error())
		}
	case flow.AgentStarted:
		mv.note(fmt.Sprintf("… agent %s", ev.Agent))
	case flow.AgentFinished, flow.AgentFailed:
		mv.settle("… agent "+ev.Agent, fmt.Sprintf("%s agent %s", mark(ev.Err), ev.Agent))
	case flow.LLMStarted:
		m.models[ev.Seq] = ev.Model
	case flow.LLMFinished:
		asked := m.models[ev.Parent]
		delete(m.models, ev.Parent)
		if asked == "" {
			asked = ev.Model
		}
		_, model := llm.ParseModel(asked)
		cost, ok := 0.0, false
		if p, found := m.prices.Lookup(asked); found {
			cost, ok = p.Cost(ev.Usage), true
		} else if p, found := m.prices.Lookup(ev.Model); found {
			cost, ok = p.Cost(ev.Usage), true
		}
		m.calls++
		m.usage.Add(ev.Usage)
		m.cost += cost
		m.priced = m.priced && ok
		if mv != nil {
			mv.calls++
			mv.usage.Add(ev.Usage)
			mv.cost += cost
			mv.note(fmt.Sprintf("✔ chat %s  %s", model, formatTokens(ev.Usage)))
		}
	case flow.LLMFailed:
		delete(m.models, ev.Parent)
		mv.note("✘ chat: " + firstLine(errText(ev.Err)))
	case flow.LLMStream:
		if mv != nil {
			text := mv.stream + ev.Text
			if i := strings.LastIndexByte(strings.TrimRight(text, "\n"), '\n'); i >= 0 {
				text = text[i+1:]
			}
			mv.stream = text
		}
	case flow.ToolStarted:
		mv.note("… tool " + ev.Tool)
	case flow.ToolFinished, flow.ToolFailed:
		mv.settle("… tool "+ev.Tool, fmt.Sprintf("%s tool %s", mark(ev.Err), ev.Tool))
	}
}

// note adds an activity line under the method.
func (mv *methodView) note(line string) {
	if mv == nil {
		return
	}
	mv.activity = append(mv.activity, line)
	if len(mv.activity) > maxActivity {
		mv.activity = mv.activity[len(mv.activity)-maxActivity:]
	}
}

// settle replaces the latest line open of a step that ended with done, or
// adds done when that line is gone.
func (mv *methodView) settle(open, done string) {
	if mv == nil {
		return
	}
	for i := len(mv.activity) - 1; i >= 0; i-- {
		if mv.activity[i] == open {
			mv.activity[i] = done
			return
		}
	}
	mv.note(done)
}

func mark(err error) string {
	if err != nil {
		return "✘"
	}
	return "✔"
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// end marks the run over: methods that never ran are skipped.
func (m *progressModel) end(err error, now time.Time) {
	m.ended, m.endErr, m.now = true, err, now
	for _, mv := range m.methods {
		switch mv.state {
		case methodWaiting:
			mv.state = methodSkipped
		case methodRunning:
			mv.state = methodFailed
			mv.elapsed = now.Sub(mv.started)
		}
	}
}

// styles of the view.
var (
	styleDone    = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleFailed  = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleRunning = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleFaint   = lipgloss.NewStyle().Faint(true)
	styleBold    = lipgloss.NewStyle().Bold(true)
)

func (m *progressModel) style(s lipgloss.Style, text string) string {
	if m.plain {
		return text
	}
	return s.Render(text)
}

func (m *progressModel) View() tea.View { return tea.NewView(m.render()) }

// render draws the view as text.
func (m *progressModel) render() string {
	var b strings.Builder
	b.WriteString(m.style(styleBold, "flow "+m.flow))
	b.WriteByte('\n')
	for _, mv := range m.methods {
		b.WriteString(m.methodLine(mv))
		b.WriteByte('\n')
		if mv.state != methodRunning && mv.state != methodFailed {
			continue
		}
		for _, a := range mv.activity {
			b.WriteString(m.clip("    " + m.style(styleFaint, a)))
			b.WriteByte('\n')
		}
		if mv.stream != "" && mv.state == methodRunning {
			b.WriteString(m.clip("    » " + strings.TrimRight(mv.stream, "\n")))
			b.WriteByte('\n')
		}
	}
	b.WriteString(m.summary())
	b.WriteByte('\n')
	return b.String()
}

func (m *progressModel) methodLine(mv *methodView) string {
	var icon, state string
	var st lipgloss.Style
	switch mv.state {
	case methodWaiting:
		icon, state, st = "·", "waiting", styleFaint
	case methodRunning:
		icon, state, st = "▶", "running", styleRunning
	case methodDone:
		icon, state, st = "✔", "done", styleDone
	case methodFailed:
		icon, state, st = "✘", "failed", styleFailed
	case methodPaused:
		icon, state, st = "⏸", "paused", styleRunning
	case methodSkipped:
		icon, state, st = "-", "skipped", styleFaint
	}
	line := fmt.Sprintf("%s %-20s %-8s", m.style(st, icon), mv.name, state)
	switch {
	case mv.state == methodRunning:
		line += "  " + formatDuration(m.now.Sub(mv.started).Truncate(100*time.Millisecond))
	case mv.elapsed > 0:
		line += "  " + formatDuration(mv.elapsed)
	}
	if !mv.usage.IsZero() {
		line += "  " + formatTokens(mv.usage)
	}
	if mv.cost > 0 {
		line += fmt.Sprintf("  $%.4f", mv.cost)
	}
	if mv.err != "" {
		line += "  " + m.style(styleFailed, mv.err)
	}
	return m.clip(line)
}

// summary is the last line: how long, how many model calls, tokens, cost.
func (m *progressModel) summary() string {
	state := "running"
	switch {
	case m.ended && m.endErr != nil:
		state = m.style(styleFailed, "failed")
	case m.ended:
		state = m.style(styleDone, "finished")
	}
	line := fmt.Sprintf("%s in %s · %d model calls · %s", state, formatDuration(m.now.Sub(m.start).Truncate(time.Millisecond)),
		m.calls, formatTokens(m.usage))
	if m.calls > 0 && m.priced && m.prices != nil {
		line += fmt.Sprintf(" · $%.4f", m.cost)
	}
	return line
}

// clip cuts a line to the terminal's width.
func (m *progressModel) clip(s string) string {
	if m.width <= 0 || lipgloss.Width(s) <= m.width {
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}
