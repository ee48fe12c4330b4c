package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/eventlog"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

func newTraceCmd() *cobra.Command {
	var pricesFile string
	cmd := &cobra.Command{
		Use:   "trace FILE",
		Short: "Print an event log (troupe run --events FILE) as a tree with timings and tokens",
		Long: "Print the event log FILE, written by `troupe run --events FILE`, as a tree: the\n" +
			"run, its methods, and the agents, model calls and tools inside them, each with\n" +
			"its duration, tokens and outcome.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("Cannot read the event log: %w", err)
			}
			defer f.Close()
			recs, err := eventlog.Read(f)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			var prices llm.Prices
			if pricesFile != "" {
				if prices, err = loadPrices(pricesFile); err != nil {
					return err
				}
			}
			printTrace(cmd.OutOrStdout(), eventlog.Tree(recs), prices)
			return nil
		},
	}
	cmd.Flags().StringVar(&pricesFile, "prices", "", "model prices (as for `troupe run --prices`), to show what each step cost")
	return cmd
}

// printTrace prints steps as a tree, one line each.
func printTrace(w io.Writer, roots []*eventlog.Node, prices llm.Prices) {
	for _, n := range roots {
		fmt.Fprintln(w, traceLine(n, prices))
		printChildren(w, n, "", prices)
	}
}

func printChildren(w io.Writer, n *eventlog.Node, indent string, prices llm.Prices) {
	kids := make([]*eventlog.Node, 0, len(n.Children))
	for _, c := range n.Children {
		if c.Kind != string(flow.LLMStream) {
			kids = append(kids, c)
		}
	}
	for i, c := range kids {
		branch, next := "├─ ", "│  "
		if i == len(kids)-1 {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintln(w, indent+branch+traceLine(c, prices))
		printChildren(w, c, indent+next, prices)
	}
}

// traceLine is one step: its outcome, what it is, how long it took, what
// it used and how it failed.
func traceLine(n *eventlog.Node, prices llm.Prices) string {
	var b strings.Builder
	b.WriteString(traceMark(n))
	b.WriteByte(' ')
	b.WriteString(traceName(n))
	if d := n.Elapsed(); d > 0 {
		fmt.Fprintf(&b, "  %s", formatDuration(d))
	}
	if u := n.TotalUsage(); !u.IsZero() {
		fmt.Fprintf(&b, "  %s", formatTokens(u))
	}
	if cost, ok := nodeCost(n, prices); ok {
		fmt.Fprintf(&b, "  $%.4f", cost)
	}
	errText := n.Error
	if n.End != nil && n.End.Error != "" {
		errText = n.End.Error
	}
	if errText != "" {
		fmt.Fprintf(&b, "  error: %s", firstLine(errText))
	}
	return b.String()
}

func traceMark(n *eventlog.Node) string {
	switch {
	case n.Failed():
		return "✘"
	case n.End != nil && strings.HasSuffix(n.End.Kind, "_paused"):
		return "⏸"
	case n.End != nil:
		return "✔"
	case strings.HasSuffix(n.Kind, "_started"):
		return "…" // the log ends before the step does
	}
	return "·"
}

func traceName(n *eventlog.Node) string {
	model := n.Model
	if model == "" && n.End != nil {
		model = n.End.Model
	}
	switch flow.EventKind(n.Kind) {
	case flow.FlowStarted:
		return fmt.Sprintf("flow %s (run %s)", n.Flow, n.RunID)
	case flow.MethodStarted:
		return "method " + n.Method
	case flow.AgentStarted:
		return "agent " + n.Agent
	case flow.LLMStarted:
		_, bare := llm.ParseModel(model)
		return strings.TrimSpace("chat " + bare)
	case flow.ToolStarted:
		return "tool " + n.Tool
	case flow.TaskStarted:
		return strings.TrimSpace("task " + n.Task)
	case flow.GuardrailStarted:
		return "guardrail"
	case flow.MemoryRetrievalStarted:
		return "recall memory"
	}
	name := n.Kind
	for _, s := range []string{n.Skill, n.Tool, n.Agent, n.Method} {
		if s != "" {
			return name + " " + s
		}
	}
	return name
}

// formatDuration rounds d for reading: milliseconds under a second.
func formatDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Microsecond * 10).String()
	}
	return d.Round(time.Millisecond).String()
}

func formatTokens(u llm.Usage) string {
	return fmt.Sprintf("tokens %d in / %d out", u.InputTokens, u.OutputTokens)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// nodeCost is what the model calls in n cost at prices; false when n holds
// none or one of them has no price.
func nodeCost(n *eventlog.Node, prices llm.Prices) (float64, bool) {
	if prices == nil {
		return 0, false
	}
	total, calls, priced := 0.0, 0, true
	var walk func(n *eventlog.Node)
	walk = func(n *eventlog.Node) {
		if n.Kind == string(flow.LLMStarted) {
			calls++
			p, ok := prices.Lookup(n.Model)
			if !ok && n.End != nil {
				p, ok = prices.Lookup(n.End.Model)
			}
			priced = priced && ok
			total += p.Cost(n.StepUsage())
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	return total, calls > 0 && priced
}
