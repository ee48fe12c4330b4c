package action

import (
	"context"
	"errors"
	"slices"

	"github.com/troupe-dev/troupe/llm"
)

// A Toolset supplies tools that exist for one agent run only, such as the
// tools of MCP servers whose sessions open when the run starts and close
// when it ends.
type Toolset interface {
	// OpenTools returns the tools for one run and a func that releases
	// what it opened; release may be nil, and is called once the run ends,
	// also when OpenTools fails. The context carries the run: events
	// reported with [Report] nest under its agent_execution_started. An
	// error fails the run.
	OpenTools(ctx context.Context, req ToolsetRequest) (tools []Tool, release func(), err error)
}

// A ToolsetRequest says which run a [Toolset] opens tools for.
type ToolsetRequest struct {
	// Agent is the agent's role; Task the crew task's name, if any.
	Agent string
	Task  string
	// Taken lists the names of the run's other tools, which the toolset's
	// tools must not repeat.
	Taken []string
}

// start opens the spec's toolsets, if any, adds their tools to the run and
// plays it; the toolsets are released when it ends.
func (l *loop) start(ctx context.Context) (*AgentOutput, error) {
	if len(l.spec.Toolsets) == 0 {
		return l.run(ctx)
	}
	var releases []func()
	defer func() {
		for _, r := range slices.Backward(releases) {
			r()
		}
	}()
	for _, ts := range l.spec.Toolsets {
		if ts == nil {
			return nil, errors.New("nil toolset")
		}
		tools, release, err := ts.OpenTools(ctx, ToolsetRequest{Agent: l.spec.Role, Task: l.task.Name, Taken: slices.Clone(l.tb.names)})
		if release != nil {
			releases = append(releases, release)
		}
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			if err := l.tb.add(t, l.spec.ToolTimeout); err != nil {
				return nil, err
			}
		}
	}
	l.native = len(l.tb.entries) > 0 && llm.SupportsToolCalls(l.spec.Model)
	return l.run(ctx)
}
