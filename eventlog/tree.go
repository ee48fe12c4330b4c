package eventlog

import (
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// A Node is one step of a run read from its records: a started event with
// its closing event (finished, completed, failed, error or paused) and the
// steps inside it, or an event that stands alone (a stream chunk, a skill
// activation).
type Node struct {
	Record
	// End is the event that closed the step; nil for a lone event or a
	// step the log does not see close (the process stopped).
	End      *Record
	Children []*Node
}

// Failed reports whether the step ended in a failure.
func (n *Node) Failed() bool {
	return n.End != nil && n.End.Error != "" || n.Error != ""
}

// Elapsed is the step's duration: its closing event's, else the time
// between the two events.
func (n *Node) Elapsed() time.Duration {
	if n.End == nil {
		return 0
	}
	if d := n.End.Duration(); d > 0 {
		return d
	}
	return n.End.Time.Sub(n.Time)
}

// StepUsage is the step's usage: its closing event's, else its own.
func (n *Node) StepUsage() llm.Usage {
	switch {
	case n.End != nil && n.End.Usage != nil:
		return *n.End.Usage
	case n.Usage != nil:
		return *n.Usage
	}
	return llm.Usage{}
}

// TotalUsage is the step's usage, or when it reports none (a method) the
// sum of the steps inside it.
func (n *Node) TotalUsage() llm.Usage {
	if u := n.StepUsage(); !u.IsZero() {
		return u
	}
	var u llm.Usage
	for _, c := range n.Children {
		u.Add(c.TotalUsage())
	}
	return u
}

// isStart and isEnd tell the kinds that open and close a step.
func isStart(kind string) bool { return strings.HasSuffix(kind, "_started") }

func isEnd(kind string) bool {
	for _, s := range []string{"_finished", "_completed", "_failed", "_error", "_paused"} {
		if strings.HasSuffix(kind, s) {
			return true
		}
	}
	return false
}

// Tree arranges records into the steps of their runs, in the order they
// started: one root per run (its flow_started), plus any record whose
// parent the log does not hold.
func Tree(recs []Record) []*Node {
	type key struct {
		run string
		seq int64
	}
	nodes := map[key]*Node{}
	var roots []*Node
	for i := range recs {
		rec := recs[i]
		parent := nodes[key{rec.RunID, rec.Parent}]
		if parent != nil && isEnd(rec.Kind) && parent.End == nil && isStart(parent.Kind) &&
			sameStep(parent.Kind, rec.Kind) {
			parent.End = &recs[i]
			continue
		}
		n := &Node{Record: rec}
		nodes[key{rec.RunID, rec.Seq}] = n
		if parent == nil {
			roots = append(roots, n)
			continue
		}
		parent.Children = append(parent.Children, n)
	}
	return roots
}

// sameStep reports whether end closes a step opened by start: both kinds
// name the same thing before their last word (llm_call_started and
// llm_call_completed).
func sameStep(start, end string) bool {
	stem := func(k string) string {
		if i := strings.LastIndexByte(k, '_'); i > 0 {
			return k[:i]
		}
		return k
	}
	return stem(start) == stem(end)
}
