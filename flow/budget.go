package flow

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// A Budget limits what a run, a method or an agent may spend. Zero fields
// set no limit. When a limit is reached the step under way finishes,
// nothing new starts (no method, model call or tool call), and the run
// fails with a *BudgetError.
type Budget struct {
	// MaxTokens limits input plus output tokens.
	MaxTokens int64
	// MaxCost limits the cost in US dollars, priced with the engine's
	// prices (WithPrices); a cost budget without a price for every model
	// the flow names fails the run before it starts.
	MaxCost float64
	// MaxWallTime limits the time since the run, the method invocation or
	// the agent's first model call started. It is checked when a step
	// starts: a step under way is not cut short.
	MaxWallTime time.Duration
	// MaxToolCalls limits the number of tool calls agents make.
	MaxToolCalls int
}

// IsZero reports whether b sets no limit.
func (b Budget) IsZero() bool { return b == Budget{} }

// Budgets are the budgets of a flow (config.budgets, methods' budgets): one
// for the whole run, one per method name and one per agent role.
type Budgets struct {
	Run     Budget
	Methods map[string]Budget
	Agents  map[string]Budget
}

func (b *Budgets) isZero() bool {
	return b == nil || b.Run.IsZero() && len(b.Methods) == 0 && len(b.Agents) == 0
}

// WithBudget limits every run of the engine, besides the budgets the
// definition declares.
func WithBudget(b Budget) Option {
	return func(e *Engine) { e.budgets.Run = b }
}

// WithMethodBudget limits every invocation of the method named method.
func WithMethodBudget(method string, b Budget) Option {
	return func(e *Engine) {
		if e.budgets.Methods == nil {
			e.budgets.Methods = map[string]Budget{}
		}
		e.budgets.Methods[method] = b
	}
}

// WithAgentBudget limits what the agents with role role spend in a run.
func WithAgentBudget(role string, b Budget) Option {
	return func(e *Engine) {
		if e.budgets.Agents == nil {
			e.budgets.Agents = map[string]Budget{}
		}
		e.budgets.Agents[role] = b
	}
}

// WithPrices sets the prices cost budgets are computed with.
func WithPrices(p llm.Prices) Option { return func(e *Engine) { e.prices = maps.Clone(p) } }

// A BudgetError reports a budget a run reached. The run stopped there:
// Usage and Cost are what it spent until then.
type BudgetError struct {
	// Scope is "run", "method NAME" or "agent ROLE".
	Scope string
	// Budget names the limit: max_tokens, max_cost, max_wall_time or
	// max_tool_calls.
	Budget string
	// Limit and Used are in tokens, US dollars, seconds or calls.
	Limit, Used float64
	// Usage and Cost are the run's so far (Cost is 0 without prices).
	Usage llm.Usage
	Cost  float64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("flow: %s budget %s reached: used %s of %s", e.Scope, e.Budget, formatAmount(e.Budget, e.Used), formatAmount(e.Budget, e.Limit))
}

func formatAmount(budget string, v float64) string {
	switch budget {
	case "max_cost":
		return fmt.Sprintf("$%.4f", v)
	case "max_wall_time":
		return (time.Duration(v * float64(time.Second))).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%d", int64(v))
}

// budgetsOf merges the definition's budgets with the engine's: a budget
// the engine sets replaces the definition's of the same scope.
func (e *Engine) budgetsOf(def *Definition) *Budgets {
	b := &Budgets{Methods: map[string]Budget{}, Agents: map[string]Budget{}}
	if d := def.Config.Budgets; d != nil {
		b.Run = d.Run
		maps.Copy(b.Agents, d.Agents)
	}
	for _, m := range def.Methods {
		if m.Budget != nil {
			b.Methods[m.Name] = *m.Budget
		}
	}
	if !e.budgets.Run.IsZero() {
		b.Run = e.budgets.Run
	}
	maps.Copy(b.Methods, e.budgets.Methods)
	maps.Copy(b.Agents, e.budgets.Agents)
	if b.isZero() {
		return nil
	}
	return b
}

// checkPrices reports the models def names that have no price when some
// budget limits cost.
func (e *Engine) checkPrices(def *Definition, b *Budgets) error {
	costly := b.Run.MaxCost > 0
	for _, x := range b.Methods {
		costly = costly || x.MaxCost > 0
	}
	for _, x := range b.Agents {
		costly = costly || x.MaxCost > 0
	}
	if !costly {
		return nil
	}
	var missing []string
	seen := map[string]bool{}
	for _, name := range modelsOf(def) {
		model := e.modelName(name)
		if seen[model] {
			continue
		}
		seen[model] = true
		if _, ok := e.prices.Lookup(model); !ok {
			missing = append(missing, fmt.Sprintf("%q", model))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("flow %s: a cost budget is set but no price is known for model %s; give prices (flow.WithPrices, troupe run --prices FILE)",
			def.Name, strings.Join(missing, ", "))
	}
	return nil
}

// modelsOf returns the LLM configs of every agent def declares (nil for an
// agent that names no model).
func modelsOf(def *Definition) []*LLMConfig {
	var out []*LLMConfig
	var walk func(a *Action)
	walk = func(a *Action) {
		if a == nil {
			return
		}
		if a.Agent != nil {
			out = append(out, a.Agent.LLM)
		}
		if a.Crew != nil {
			for _, ag := range a.Crew.Agents {
				out = append(out, ag.LLM)
			}
		}
		for _, s := range a.Steps {
			walk(s.Action)
		}
	}
	for _, m := range def.Methods {
		walk(m.Do)
	}
	return out
}
