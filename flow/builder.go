package flow

// A Builder assembles a flow in Go. It produces the same Definition that
// the equivalent YAML produces, so a built flow validates, runs and
// serialises (YAML, JSON) exactly like a loaded one; it may also use Go
// functions as method bodies (Go), which the YAML format cannot express.
//
// Flow-level settings are chained on the Builder; Method starts a method
// and returns a MethodBuilder whose settings apply to that method. Nothing
// is checked until Build, which reports every problem at once.
//
//	def, err := flow.New("Review").
//		State(map[string]any{"topic": "AI"}).
//		Method("draft", flow.Expr(`"draft about " + state.topic`)).Start().
//		Method("review", flow.Expr(`size(outputs.draft) > 10 ? "ok" : "short"`)).
//		ListenTo("draft").Router("ok", "short").
//		Method("publish", flow.Code("app:publish", nil)).ListenTo("ok").
//		Build()
//
// A Builder is not safe for concurrent use. Build may be called more than
// once; each call returns a new Definition.
type Builder struct {
	name           string
	description    string
	state          *StateSpec
	config         Config
	persist        *Persist
	conversational *Conversational
	methods        []*MethodBuilder
}

// New starts a flow with the given name.
func New(name string) *Builder {
	return &Builder{name: name, config: Config{MaxMethodCalls: DefaultMaxMethodCalls}}
}

// Description sets the flow's description.
func (b *Builder) Description(s string) *Builder {
	b.description = s
	return b
}

// State declares a dict state whose initial value is a copy of initial
// (nil for an empty state). Values are JSON data; int, float32, []string,
// map[string]string and similar Go forms are converted at Build.
func (b *Builder) State(initial map[string]any) *Builder {
	b.state = &StateSpec{Type: "dict", Default: initial}
	return b
}

// JSONSchemaState declares a json_schema state: the state is validated
// against schema and starts from initial (which may be nil).
func (b *Builder) JSONSchemaState(schema, initial map[string]any) *Builder {
	b.state = &StateSpec{Type: "json_schema", JSONSchema: schema, Default: initial}
	return b
}

// StateSpec sets the state declaration as written, for the pydantic and
// unknown kinds; nil removes it.
func (b *Builder) StateSpec(s *StateSpec) *Builder {
	b.state = s
	return b
}

// Config lets fn change the flow's configuration block, which starts with
// CrewAI's defaults (MaxMethodCalls 100).
func (b *Builder) Config(fn func(*Config)) *Builder {
	if fn != nil {
		fn(&b.config)
	}
	return b
}

// MaxMethodCalls sets how many times one listener may run per run.
func (b *Builder) MaxMethodCalls(n int) *Builder {
	b.config.MaxMethodCalls = n
	return b
}

// Persist sets flow-level persistence; nil removes it.
func (b *Builder) Persist(p *Persist) *Builder {
	b.persist = p
	return b
}

// Conversational opts the flow into CrewAI's conversational block with the
// given settings (the keys of the block, e.g. system_prompt). It is enabled
// unless settings holds enabled: false.
func (b *Builder) Conversational(settings map[string]any) *Builder {
	b.conversational = &Conversational{Enabled: true, Settings: settings}
	return b
}

// Method declares the next method, in order, with its action, and returns
// its builder. A nil action is reported by Build as a missing do.
func (b *Builder) Method(name string, do *Action) *MethodBuilder {
	m := &MethodBuilder{flow: b, m: Method{Name: name, Do: do}}
	b.methods = append(b.methods, m)
	return m
}

// A MethodBuilder sets the trigger and options of one method. Its Method
// and Build continue with the flow, so a whole flow reads as one chain.
type MethodBuilder struct {
	flow *Builder
	m    Method
}

// Start makes the method run at kickoff (start: true).
func (m *MethodBuilder) Start() *MethodBuilder {
	m.m.Start = Start{Always: true}
	return m
}

// StartWhen makes the method a conditional start: it runs at kickoff when
// no method is an unconditional start, and whenever c is met.
func (m *MethodBuilder) StartWhen(c *Condition) *MethodBuilder {
	m.m.Start = Start{When: c}
	return m
}

// Listen makes the method run when c is met, e.g. flow.And(flow.On("a"),
// flow.On("b")). Start methods ignore it, as in CrewAI.
func (m *MethodBuilder) Listen(c *Condition) *MethodBuilder {
	m.m.Listen = c
	return m
}

// ListenTo makes the method run when any of the events happens: a method
// completing (its name) or a router outcome. With one event it is
// Listen(On(event)); with several, Listen(Or(...)).
func (m *MethodBuilder) ListenTo(events ...string) *MethodBuilder {
	switch len(events) {
	case 0:
		m.m.Listen = nil
	case 1:
		m.m.Listen = On(events[0])
	default:
		items := make([]*Condition, len(events))
		for i, e := range events {
			items[i] = On(e)
		}
		m.m.Listen = Or(items...)
	}
	return m
}

// Router makes the method's result an event name. emit declares the
// outcomes it may produce; Troupe requires the result to be one of them
// when any are given.
func (m *MethodBuilder) Router(emit ...string) *MethodBuilder {
	m.m.Router = true
	m.m.Emit = emit
	return m
}

// Describe sets the method's description.
func (m *MethodBuilder) Describe(s string) *MethodBuilder {
	m.m.Description = s
	return m
}

// HumanFeedback asks a person to review the method's output. Unset fields
// take the loader's defaults (LLM gpt-4o-mini, LearnSource "hitl"; set LLM
// to Model("") for no LLM, as llm: null); a non-empty Emit makes the method
// a router over those outcomes.
func (m *MethodBuilder) HumanFeedback(h *HumanFeedback) *MethodBuilder {
	m.m.HumanFeedback = h
	return m
}

// Persist sets method-level persistence; nil removes it.
func (m *MethodBuilder) Persist(p *Persist) *MethodBuilder {
	m.m.Persist = p
	return m
}

// Method ends this method and declares the next one (see Builder.Method).
func (m *MethodBuilder) Method(name string, do *Action) *MethodBuilder {
	return m.flow.Method(name, do)
}

// Flow returns the flow's builder, to change flow-level settings.
func (m *MethodBuilder) Flow() *Builder { return m.flow }

// Build ends the chain; see Builder.Build.
func (m *MethodBuilder) Build() (*Definition, error) { return m.flow.Build() }

// Build checks the flow and returns its Definition. It applies the same
// rules as Load, with the same messages: the shapes the decoder checks
// (a method without do, a crew without agents, an each step without an
// action) and everything Validate checks (names, self-listening methods,
// CEL). Diagnostics of a built flow have no file and line 0.
//
// On error the result is a Diagnostics holding every diagnostic, errors
// and warnings; otherwise the warnings are in Definition.Warnings. The
// Definition holds copies of the builder's values, converted to JSON data.
func (b *Builder) Build() (*Definition, error) {
	c := &canon{reporter: &reporter{pos: positions{}}, invalid: map[string]bool{}}
	def := &Definition{
		Schema:         SchemaV1,
		Name:           b.name,
		Description:    b.description,
		State:          c.state(b.state),
		Config:         c.config(b.config),
		Persist:        c.persist("persist", b.persist),
		Conversational: c.conversational(b.conversational),
	}
	if len(b.methods) > 0 {
		def.Methods = make([]*Method, 0, len(b.methods))
	}
	for _, mb := range b.methods {
		def.Methods = append(def.Methods, c.method(&mb.m))
	}
	diags := c.diags
	for _, d := range Validate(def) {
		// A rejected trigger was reported; the method is not also untriggered.
		if d.Severity == SeverityWarning && c.invalid[d.Path] {
			continue
		}
		diags = append(diags, d)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	def.Warnings = diags.Warnings()
	return def, nil
}
