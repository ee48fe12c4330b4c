package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store"
)

// exitPaused is the exit code of a run that paused for human feedback.
const exitPaused = 3

// A terminal knows whether it is an interactive terminal. Tests wrap stdin
// and stderr in one to take either path; other readers and writers are
// terminals when they are an *os.File on a terminal device.
type terminal interface{ IsTerminal() bool }

// isTerminal reports whether v (a reader or writer) is an interactive
// terminal.
func isTerminal(v any) bool {
	switch x := v.(type) {
	case terminal:
		return x.IsTerminal()
	case *os.File:
		return x != nil && (isatty.IsTerminal(x.Fd()) || isatty.IsCygwinTerminal(x.Fd()))
	}
	return false
}

// terminalFeedback asks for human feedback in the terminal: it prints the
// output under review and the question, and reads one line. End of input
// (Ctrl-D) pauses the run instead, to be resumed later.
type terminalFeedback struct {
	out   io.Writer
	lines *lineReader
	mu    sync.Mutex // one question at a time
}

func newTerminalFeedback(in io.Reader, out io.Writer) *terminalFeedback {
	return &terminalFeedback{out: out, lines: &lineReader{src: in}}
}

// RequestFeedback implements flow.FeedbackProvider.
func (p *terminalFeedback) RequestFeedback(ctx context.Context, req *flow.FeedbackRequest) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.out
	rule := strings.Repeat("─", 20)
	fmt.Fprintf(w, "\n%s OUTPUT FOR REVIEW %s\n%s\n%s\n", rule, rule, reviewText(req.Output), strings.Repeat("─", 59))
	fmt.Fprintln(w, req.Message)
	if len(req.Emit) > 0 {
		fmt.Fprintf(w, "Outcomes: %s\n", outcomes(req.Emit, req.DefaultOutcome))
	}
	fmt.Fprintln(w, "(press Enter to skip, or type your feedback)")
	fmt.Fprint(w, "Your feedback: ")
	line, err := p.lines.next(ctx)
	if err == io.EOF {
		fmt.Fprintln(w)
		return "", flow.ErrPending
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// lineReader reads lines on one goroutine, started at the first request,
// so a cancelled request leaves no read racing the next one.
type lineReader struct {
	src   io.Reader
	once  sync.Once
	lines chan string
}

// next returns the next line, io.EOF at the end of input, or the context's
// error.
func (l *lineReader) next(ctx context.Context) (string, error) {
	l.once.Do(func() {
		l.lines = make(chan string)
		go l.read()
	})
	select {
	case line, ok := <-l.lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

func (l *lineReader) read() {
	defer close(l.lines)
	br := bufio.NewReader(l.src)
	for {
		line, err := br.ReadString('\n')
		if err == nil || line != "" {
			l.lines <- strings.TrimRight(line, "\r\n")
		}
		if err != nil {
			return
		}
	}
}

// reviewText is an output as a person reads it: text as is, an agent's or
// crew's raw answer, anything else as indented JSON.
func reviewText(v any) string {
	switch x := jsonSafe(v).(type) {
	case nil:
		return "(no output)"
	case string:
		return x
	case map[string]any:
		if raw, ok := x["raw"].(string); ok {
			return raw
		}
	}
	b, err := json.MarshalIndent(jsonSafe(v), "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outcomes lists the outcomes a reviewer may choose, marking the default.
func outcomes(emit []string, def string) string {
	if len(emit) == 0 {
		return "any text"
	}
	if def == "" {
		def = emit[0]
	}
	return strings.Join(emit, ", ") + " (empty feedback: " + def + ")"
}

// reportPause tells the person at the other end of a paused run what is
// asked and how to answer.
func reportPause(w io.Writer, flowName, flowID string, pf *store.PendingFeedback, resume []string) {
	fmt.Fprintf(w, "Flow %s paused for human feedback.\n", flowName)
	fmt.Fprintf(w, "  flow id:  %s\n", flowID)
	fmt.Fprintf(w, "  method:   %s\n", pf.Method)
	fmt.Fprintf(w, "  question: %s\n", pf.Message)
	fmt.Fprintf(w, "  outcomes: %s\n", outcomes(pf.Emit, pf.DefaultOutcome))
	fmt.Fprintln(w, "Output for review:")
	for _, line := range strings.Split(reviewText(pf.Output), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w, "Resume with:")
	fmt.Fprintf(w, "  %s\n", shellJoin(resume))
}

// resumeCommand is the command line that continues a paused run with the
// same file, store and permissions.
func resumeCommand(path, flowID string, f runFlags) []string {
	args := []string{"troupe", "resume", path, "--id", flowID}
	if f.store != "" && f.store != defaultStore {
		args = append(args, "--store", f.store)
	}
	if f.memory != "" && f.memory != defaultMemory {
		args = append(args, "--memory", f.memory)
	}
	if f.allowScripts {
		args = append(args, "--allow-scripts")
	}
	if f.allowSkillScripts {
		args = append(args, "--allow-skill-scripts")
	}
	if f.llmScript != "" {
		args = append(args, "--llm-script", f.llmScript)
	}
	if f.toolScript != "" {
		args = append(args, "--tool-script", f.toolScript)
	}
	return append(args, "--feedback", "<your feedback>")
}

// shellJoin quotes each argument for a POSIX shell when it needs quoting.
func shellJoin(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
