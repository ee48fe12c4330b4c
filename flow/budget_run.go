package flow

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/llm"
)

// budgetState is what one run has spent against its budgets. Runs without
// budgets have none, and pay nothing for them.
type budgetState struct {
	b       *Budgets
	prices  llm.Prices
	now     func() time.Time // the engine's clock
	mu      sync.Mutex
	run     spend
	methods map[string]*spend
	agents  map[string]*spend
	reached *BudgetError
}

// spend is what a run, a method or an agent spent; start is when it
// started (a method's latest invocation, an agent's first model call).
type spend struct {
	usage llm.Usage
	cost  float64
	tools int
	start time.Time
}

func newBudgetState(b *Budgets, prices llm.Prices, now func() time.Time) *budgetState {
	return &budgetState{b: b, prices: prices, now: now, run: spend{start: now()},
		methods: map[string]*spend{}, agents: map[string]*spend{}}
}

func (s *budgetState) of(m map[string]*spend, name string) *spend {
	sp := m[name]
	if sp == nil {
		sp = &spend{}
		m[name] = sp
	}
	return sp
}

// spent returns the run's usage so far.
func (s *budgetState) spent() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run.usage
}

// beforeMethod refuses to start a method once a budget is reached, and
// starts the clock of its invocation.
func (s *budgetState) beforeMethod(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.of(s.methods, method).start = now
	if be := s.check(now, false, method, ""); be != nil {
		return be
	}
	return nil
}

// call runs one model or tool call of an agent within the budgets: it is
// refused when a budget is reached, and what it spends is counted once it
// returns (the call itself is never cut short).
func (s *budgetState) call(ctx context.Context, kind EffectKind, method, agent, model string,
	next func(context.Context) (any, error)) (any, error) {
	s.mu.Lock()
	now := s.now()
	if be := s.check(now, kind == EffectTool, method, agent); be != nil {
		s.mu.Unlock()
		return nil, be
	}
	ag := s.of(s.agents, agent)
	if ag.start.IsZero() {
		ag.start = now
	}
	if kind == EffectTool {
		s.run.tools++
		s.of(s.methods, method).tools++
		ag.tools++
	}
	s.mu.Unlock()

	out, err := next(ctx)
	resp, ok := out.(*llm.Response)
	if kind != EffectLLM || !ok || resp == nil {
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cost := 0.0
	if p, ok := s.prices.Lookup(model); ok {
		cost = p.Cost(resp.Usage)
	} else if p, ok := s.prices.Lookup(resp.Model); ok {
		cost = p.Cost(resp.Usage)
	}
	for _, sp := range []*spend{&s.run, s.of(s.methods, method), ag} {
		sp.usage.Add(resp.Usage)
		sp.cost += cost
	}
	s.check(s.now(), false, method, agent) // remembered for the next step
	return out, err
}

// check returns the first budget reached by the run, method or agent
// (tool says a tool call is about to start), and remembers it: once a
// budget is reached, nothing new starts. It holds s.mu.
func (s *budgetState) check(now time.Time, tool bool, method, agent string) *BudgetError {
	if s.reached != nil {
		return s.reached
	}
	type scoped struct {
		scope string
		b     Budget
		sp    *spend
	}
	scopes := []scoped{{"run", s.b.Run, &s.run}}
	if b, ok := s.b.Methods[method]; ok && method != "" {
		scopes = append(scopes, scoped{"method " + method, b, s.of(s.methods, method)})
	}
	if b, ok := s.b.Agents[agent]; ok && agent != "" {
		scopes = append(scopes, scoped{"agent " + agent, b, s.of(s.agents, agent)})
	}
	for _, x := range scopes {
		b, sp := x.b, x.sp
		var name string
		var limit, used float64
		switch {
		case b.MaxTokens > 0 && sp.usage.Total() >= b.MaxTokens:
			name, limit, used = "max_tokens", float64(b.MaxTokens), float64(sp.usage.Total())
		case b.MaxCost > 0 && sp.cost >= b.MaxCost:
			name, limit, used = "max_cost", b.MaxCost, sp.cost
		case b.MaxWallTime > 0 && !sp.start.IsZero() && now.Sub(sp.start) >= b.MaxWallTime:
			name, limit, used = "max_wall_time", b.MaxWallTime.Seconds(), now.Sub(sp.start).Seconds()
		case tool && b.MaxToolCalls > 0 && sp.tools >= b.MaxToolCalls:
			name, limit, used = "max_tool_calls", float64(b.MaxToolCalls), float64(sp.tools)
		default:
			continue
		}
		s.reached = &BudgetError{Scope: x.scope, Budget: name, Limit: limit, Used: used, Usage: s.run.usage, Cost: s.run.cost}
		return s.reached
	}
	return nil
}

// budget returns the run's budget state, nil when it has no budgets.
func (r *run) budget() *budgetState {
	if r.side == nil {
		return nil
	}
	return r.side.budget
}

// budgetCheck is the check that the run may start a method.
func (r *run) budgetCheck(cm *cmethod) error {
	if err := r.side.budget.beforeMethod(cm.name); err != nil {
		return &MethodError{Flow: r.p.def.Name, Method: cm.name, Err: fmt.Errorf("not started: %w", err)}
	}
	return nil
}
