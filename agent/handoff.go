package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
)

// HandoffPrefix starts the name of the tool that hands a task to another
// agent: handoff_refund_agent for refund_agent.yaml.
const HandoffPrefix = "handoff_"

// handoffName is the agent name a hand-off file stands for in its tool's
// name: the file's base name without extension.
func handoffName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// checkHandoffs loads the hand-off files of def, reporting files that are
// missing or invalid and cycles (a -> b -> a).
func checkHandoffs(def *Definition, r *reporter, o *options) {
	chain := o.chain
	if len(chain) == 0 {
		chain = []string{filepath.Clean(def.File)}
	}
	for i, h := range def.Handoffs {
		p := fmt.Sprintf("agent.handoffs[%d]", i)
		path := filepath.Join(filepath.Dir(def.File), h)
		if j := slices.Index(chain, filepath.Clean(path)); j >= 0 {
			r.errorf(r.at(p), p, "handoff_cycle", "hand-off cycle: %s -> %s", strings.Join(chain[j:], " -> "), path)
			continue
		}
		sub := *o
		sub.chain = append(slices.Clone(chain), filepath.Clean(path))
		hdef, ds := CheckFile(path, func(opt *options) { *opt = sub })
		if len(ds) > 0 && ds[0].Code == "read" {
			r.errorf(r.at(p), p, "handoff", "hand-off agent file %q not found (looked for %s)", h, path)
			continue
		}
		r.diags = append(r.diags, ds...)
		if !ds.HasErrors() {
			def.handoffs = append(def.handoffs, hdef)
		}
	}
}

// handoffTool hands a task to another agent: a new session of it plays one
// turn, and its answer is the tool's result.
type handoffTool struct {
	name   string
	runner *Runner
}

// Spec offers the hand-off as a tool taking the task.
func (h *handoffTool) Spec() llm.ToolSpec {
	desc := "Hand a task to the " + h.runner.def.Name + " agent and get its answer."
	if d := h.runner.def.Description; d != "" {
		desc += " It " + strings.ToLower(d[:1]) + d[1:] + "."
	}
	return llm.ToolSpec{
		Name:        h.name,
		Description: desc,
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"task": map[string]any{"type": "string", "description": "what the agent should do, with everything it needs to know"}},
			"required":   []any{"task"},
		},
	}
}

// Call plays one turn of a new session of the other agent.
func (h *handoffTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	from, _ := ctx.Value(callerKey{}).(caller)
	s := h.runner.NewSession("", from.inputs)
	res, err := h.runner.Turn(ctx, s, in.Task)
	if err != nil {
		return nil, err
	}
	if from.usage != nil {
		from.usage(res.Usage)
	}
	if res.Status == StatusPaused {
		return nil, errors.New("the agent needs a person's approval, which hand-offs cannot ask for")
	}
	return res.Answer, nil
}

// callerKey keys, in the context of a tool call, what a hand-off needs of
// the calling turn.
type callerKey struct{}

// caller is the calling session's inputs, and where to count what a
// hand-off spends.
type caller struct {
	inputs map[string]any
	usage  func(llm.Usage)
}

var _ action.Tool = (*handoffTool)(nil)
