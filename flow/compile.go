package flow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/store"
)

// A Program is a definition compiled for one engine: resolved actions,
// compiled CEL, and the trigger graph indexed by event. It runs, streams
// and resumes the definition any number of times, concurrently.
//
// Get one from [Engine.Compile] and keep it as long as the definition is in
// use: a service that parses definitions per request compiles each and
// drops it with the request. The definition must not change after it was
// compiled.
type Program struct {
	e        *Engine
	def      *Definition
	methods  []*cmethod
	byName   map[string]int
	starts   []int // run at kickoff
	routers  map[string][]int
	plain    map[string][]int
	condRuns map[string][]int // conditional starts by event
	// routes holds an event with its listeners (the three lists above),
	// for every event that has listeners or is declared in some emit.
	routes   map[string]*route
	maxCalls int
	// budgets are the runs' budgets; nil when none is set.
	budgets *Budgets
	state   *stateInit
	nSeen   int // leaves of all conditions
	// flowStore is the store of flow-level persist, which restores runs by
	// id; hash identifies the definition in snapshots.
	flowStore store.Store
	hash      defHash
	// journal is set when runs keep their completions: some method
	// persists or asks for human feedback.
	journal bool
	// side is set when runs need their runSide: they journal or save.
	side bool
	// racing is set when some or-listener has alternatives that race.
	racing bool
	// spare and runs recycle the scheduler state of finished runs (5 of
	// BenchmarkW1Chain10's 14 allocations a run before they did): spare
	// holds one, which serves a definition run again and again without
	// the pool's bookkeeping; runs holds the others.
	spare atomic.Pointer[run]
	runs  sync.Pool
	// mem is the flow's memory, nil when memory is off.
	mem *memory.Memory
	// anyOr is set when some listener fires once per cycle, so re-runs
	// must clear the fired marks.
	anyOr bool
}

// execFn runs an action with its scope.
type execFn func(ctx context.Context, r *run, sc *scope, trigger any) (any, error)

type cmethod struct {
	idx    int
	name   string
	m      *Method
	run    execFn
	router bool
	start  bool
	// cond is the listen condition (or the start condition of a
	// conditional start) with leaves numbered for the seen sets.
	cond    *ccond
	nLeaves int
	// orMulti marks a plain listener whose condition is a top-level or of
	// several branches: it fires once per cycle.
	orMulti bool
	// racers are the or-alternatives that are methods feeding only this
	// listener; when several run in one batch they race.
	racers map[int]bool
	// emit holds the declared outcomes of a router.
	emit []string
	// scope is the method's own scope, shared by all its runs.
	scope *scope
	// seenAt is the offset of this method's leaves in the run's seen set.
	seenAt int
	// persist is set when snapshots are saved after this method.
	persist *persistence
	// onRouters and onPlain are the listeners of this method's completion.
	onRouters, onPlain *targets
	// routes holds each declared outcome with its listeners.
	routes []*route
	// simple marks a listener (plain or router) that needs no bookkeeping
	// when it fires: its condition is a single event.
	simple bool
	// direct is set when the action runs as it is: no human feedback and
	// no interceptors to go through.
	direct bool
	// flat tells how the condition is met without walking it: by all of
	// its leaves (a single event or an and of events), by any (an or of
	// events), or neither (nested conditions).
	flat flatness
}

type flatness uint8

const (
	nested flatness = iota
	flatAll
	flatAny
)

// targets are the listeners one event may trigger, in definition order,
// with the leaves of each listener's condition that the event marks.
type targets struct {
	idx    []int
	leaves [][]int
	// simple is set when every listener is simple: the event triggers
	// them all and there is nothing to record.
	simple bool
}

func (t *targets) len() int {
	if t == nil {
		return 0
	}
	return len(t.idx)
}

// newTargets lists the listeners idx of event.
func (p *Program) newTargets(event string, idx []int) *targets {
	if len(idx) == 0 {
		return nil
	}
	t := &targets{idx: idx, leaves: make([][]int, len(idx)), simple: !p.anyOr}
	for k, i := range idx {
		cm := p.methods[i]
		t.leaves[k] = cm.cond.leavesOf(event, nil)
		t.simple = t.simple && cm.simple
	}
	return t
}

// listeners are the methods an event may trigger: routers, plain
// listeners and conditional starts.
type listeners struct {
	routers, plain, condRuns *targets
}

// index fills p.routes, each method's listeners and each router's routes
// from the event maps.
func (p *Program) index() {
	on := map[string]*listeners{}
	get := func(ev string) *listeners {
		ls := on[ev]
		if ls == nil {
			ls = &listeners{}
			on[ev] = ls
		}
		return ls
	}
	for ev, ids := range p.routers {
		get(ev).routers = p.newTargets(ev, ids)
	}
	for ev, ids := range p.plain {
		get(ev).plain = p.newTargets(ev, ids)
	}
	for ev, ids := range p.condRuns {
		get(ev).condRuns = p.newTargets(ev, ids)
	}
	for _, cm := range p.methods {
		if ls := on[cm.name]; ls != nil {
			cm.onRouters, cm.onPlain = ls.routers, ls.plain
		}
	}
	p.routes = map[string]*route{}
	for ev, ls := range on {
		p.routes[ev] = &route{event: ev, on: ls}
	}
	for _, cm := range p.methods {
		for _, ev := range cm.emit {
			rt := p.routes[ev]
			if rt == nil {
				rt = &route{event: ev}
				p.routes[ev] = rt
			}
			cm.routes = append(cm.routes, rt)
		}
	}
}

// ccond is a condition with numbered leaves.
type ccond struct {
	op    Op
	leaf  int
	event string
	items []*ccond
}

func compileCond(c *Condition, n *int) *ccond {
	if c.Op == "" {
		cc := &ccond{leaf: *n, event: c.Event}
		*n++
		return cc
	}
	cc := &ccond{op: c.Op}
	for _, it := range c.Items {
		cc.items = append(cc.items, compileCond(it, n))
	}
	return cc
}

func (c *ccond) met(seen []bool) bool {
	switch c.op {
	case "":
		return seen[c.leaf]
	case "and":
		for _, it := range c.items {
			if !it.met(seen) {
				return false
			}
		}
		return true
	}
	for _, it := range c.items {
		if it.met(seen) {
			return true
		}
	}
	return false
}

// leavesOf appends to out the leaves that event marks.
func (c *ccond) leavesOf(event string, out []int) []int {
	if c.op == "" {
		if c.event == event {
			out = append(out, c.leaf)
		}
		return out
	}
	for _, it := range c.items {
		out = it.leavesOf(event, out)
	}
	return out
}

// flatness tells how c can be checked by counting leaves.
func (c *ccond) flatness() flatness {
	if c.op == "" {
		return flatAll
	}
	for _, it := range c.items {
		if it.op != "" {
			return nested
		}
	}
	if c.op == "and" {
		return flatAll
	}
	return flatAny
}

func (e *Engine) compile(def *Definition) (*Program, error) {
	if e.envErr != nil {
		return nil, e.envErr
	}
	p := &Program{
		e:        e,
		def:      def,
		byName:   map[string]int{},
		routers:  map[string][]int{},
		plain:    map[string][]int{},
		condRuns: map[string][]int{},
		maxCalls: def.Config.MaxMethodCalls,
	}
	if p.maxCalls == 0 {
		p.maxCalls = DefaultMaxMethodCalls
	}
	var problems []MethodProblem
	scriptsDisabled := false
	anyAlways := false
	for i, m := range def.Methods {
		cm := &cmethod{idx: i, name: m.Name, m: m, router: m.IsRouter(), start: m.IsStart(), emit: m.Events(),
			scope: &scope{method: m.Name}}
		p.methods = append(p.methods, cm)
		p.byName[m.Name] = i
		anyAlways = anyAlways || m.Start.Always
		run, err := e.compileAction(def, m.Name, m.Do)
		switch {
		case errors.Is(err, ErrScriptsDisabled):
			scriptsDisabled = true
		case err != nil:
			problems = append(problems, MethodProblem{Method: m.Name, Err: err})
		}
		cm.run = run
	}
	if scriptsDisabled {
		return nil, ErrScriptsDisabled
	}
	if len(problems) > 0 {
		return nil, &CompileError{Flow: def.Name, Problems: problems}
	}
	if p.budgets = e.budgetsOf(def); p.budgets != nil {
		if err := e.checkPrices(def, p.budgets); err != nil {
			return nil, err
		}
	}
	for _, cm := range p.methods {
		m := cm.m
		var cond *Condition
		switch {
		case m.Start.Always:
			p.starts = append(p.starts, cm.idx)
		case m.Start.When != nil:
			cond = m.Start.When
			if !anyAlways {
				p.starts = append(p.starts, cm.idx)
			}
		default:
			cond = m.Listen
		}
		if cond == nil {
			continue
		}
		cm.cond = compileCond(cond, &cm.nLeaves)
		cm.seenAt = p.nSeen
		p.nSeen += cm.nLeaves
		cm.orMulti = !cm.start && !cm.router && cond.Op == "or" && len(cond.Items) > 1
		index := p.plain
		switch {
		case cm.start:
			index = p.condRuns
		case cm.router:
			index = p.routers
		}
		for _, ev := range uniq(cond.Leaves()) {
			index[ev] = append(index[ev], cm.idx)
		}
	}
	for _, cm := range p.methods {
		cm.simple = !cm.start && cm.cond != nil && cm.cond.op == ""
		cm.direct = cm.m.HumanFeedback == nil && len(e.intercept) == 0 && p.budgets == nil
		if cm.cond != nil {
			cm.flat = cm.cond.flatness()
		}
		p.anyOr = p.anyOr || cm.orMulti
	}
	p.findRacers()
	p.index()
	if err := e.compilePersist(p); err != nil {
		return nil, err
	}
	mem, err := e.flowMemory(def)
	if err != nil {
		return nil, err
	}
	p.mem = mem
	for _, cm := range p.methods {
		p.journal = p.journal || cm.persist != nil || cm.m.HumanFeedback != nil
	}
	st, err := compileState(def, e.states)
	if err != nil {
		return nil, err
	}
	p.state = st.index()
	p.side = p.journal || p.flowStore != nil
	return p, nil
}

// findRacers marks, for each or-listener, the alternatives that are methods
// whose completion feeds nothing else.
func (p *Program) findRacers() {
	for _, cm := range p.methods {
		if !cm.orMulti {
			continue
		}
		for _, it := range cm.m.Listen.Items {
			if it.Op != "" {
				continue
			}
			alt, ok := p.byName[it.Event]
			if !ok {
				continue
			}
			feeds := len(p.plain[it.Event]) + len(p.routers[it.Event]) + len(p.condRuns[it.Event])
			if feeds == 1 {
				if cm.racers == nil {
					cm.racers = map[int]bool{}
				}
				cm.racers[alt] = true
			}
		}
		p.racing = p.racing || len(cm.racers) >= 2
	}
}

func uniq(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// refFormat applies CrewAI's ref format rule: module:qualname.
func refFormat(ref string) error {
	mod, qual, ok := strings.Cut(ref, ":")
	if !ok || mod == "" || qual == "" || strings.Contains(ref, "<") {
		return fmt.Errorf("invalid do ref '%s'; expected 'module:qualname'", ref)
	}
	return nil
}

// checkRef explains why a code ref has no handler.
func checkRef(ref string) error {
	if err := refFormat(ref); err != nil {
		return err
	}
	return fmt.Errorf("unresolvable do ref '%s' (no handler is registered under it; use flow.WithCode(%q, fn))", ref, ref)
}
