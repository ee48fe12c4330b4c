package agent

import (
	"bytes"
	"encoding/json"
	"time"
)

// BuilderSource names definitions built with a Builder in diagnostics.
const BuilderSource = "<builder>"

// A Builder makes a Definition in Go, as an agent file would say it. Build
// validates it with the rules of files, so a built agent and a loaded one
// are the same thing:
//
//	def, err := agent.New("helper").
//		SystemPrompt("You answer order questions.").
//		Model("openai/gpt-4o-mini").
//		Tools("query_order").
//		MaxSteps(4).
//		Build(agent.WithTools(tools))
type Builder struct {
	fields obj
	model  obj
	tools  []any
}

// obj is a JSON object that keeps its keys in order.
type obj []field

type field struct {
	key string
	val any
}

func (o obj) set(key string, v any) obj {
	for i := range o {
		if o[i].key == key {
			o[i].val = v
			return o
		}
	}
	return append(o, field{key, v})
}

// MarshalJSON writes the keys in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// New starts a definition of the agent called name.
func New(name string) *Builder { return &Builder{fields: obj{{"name", name}}} }

func (b *Builder) set(key string, v any) *Builder {
	b.fields = b.fields.set(key, v)
	return b
}

// Description says what the agent is for.
func (b *Builder) Description(s string) *Builder { return b.set("description", s) }

// SystemPrompt sets the system message (${...} templates read inputs).
func (b *Builder) SystemPrompt(s string) *Builder { return b.set("system_prompt", s) }

// Model sets the model string, such as openai/gpt-4o-mini.
func (b *Builder) Model(name string) *Builder {
	b.model = b.model.set("model_name", name)
	return b
}

// Temperature sets the model's temperature.
func (b *Builder) Temperature(t float64) *Builder {
	b.model = b.model.set("temperature", t)
	return b
}

// MaxTokens bounds each reply of the model.
func (b *Builder) MaxTokens(n int) *Builder {
	b.model = b.model.set("max_tokens", n)
	return b
}

// Tools adds tools by registry name.
func (b *Builder) Tools(names ...string) *Builder {
	for _, n := range names {
		b.tools = append(b.tools, n)
	}
	return b
}

// Tool adds a tool with settings.
func (b *Builder) Tool(ref ToolRef) *Builder {
	o := obj{{"name", ref.Name}}
	if ref.Approval != "" {
		o = o.set("approval", ref.Approval)
	}
	if ref.Timeout != 0 {
		o = o.set("timeout", ref.Timeout.String())
	}
	if ref.MaxCalls != 0 {
		o = o.set("max_calls", ref.MaxCalls)
	}
	b.tools = append(b.tools, o)
	return b
}

// MaxSteps bounds the model calls of a turn.
func (b *Builder) MaxSteps(n int) *Builder { return b.set("max_steps", n) }

// Timeout bounds a whole turn.
func (b *Builder) Timeout(d time.Duration) *Builder { return b.set("timeout", d.String()) }

// ToolTimeout bounds each tool call without a timeout of its own.
func (b *Builder) ToolTimeout(d time.Duration) *Builder { return b.set("tool_timeout", d.String()) }

// RepeatDetection turns repeat detection on or off (on by default).
func (b *Builder) RepeatDetection(on bool) *Builder { return b.set("repeat_detection", on) }

// ErrorPolicy sets the error policy.
func (b *Builder) ErrorPolicy(p ErrorPolicy) *Builder {
	o := obj{{"max_retries", p.MaxRetries}}
	if p.OnError != "" {
		o = o.set("on_error", string(p.OnError))
	}
	if p.FallbackMessage != "" {
		o = o.set("fallback_message", p.FallbackMessage)
	}
	return b.set("error_policy", o)
}

// StateMachine sets the state machine.
func (b *Builder) StateMachine(m StateMachine) *Builder {
	states := obj{}
	for _, s := range m.States {
		so := obj{}
		if s.Tools != nil {
			so = so.set("tools", s.Tools)
		}
		if len(s.On) > 0 {
			on := obj{}
			for _, t := range s.On {
				on = on.set(t.Event, t.Target)
			}
			so = so.set("on", on)
		}
		if s.Final {
			so = so.set("final", true)
		}
		states = states.set(s.Name, so)
	}
	events := obj{}
	for _, e := range m.Events {
		var cond any
		if e.Condition != "" {
			cond = e.Condition
		}
		events = events.set(e.Name, cond)
	}
	return b.set("state_machine", obj{{"initial", m.Initial}, {"states", states}, {"events", events}})
}

// Build validates the definition as a file would be (opts as for Load);
// the error is Diagnostics whose paths name the problems.
func (b *Builder) Build(opts ...Option) (*Definition, error) {
	fields := b.fields
	if b.model != nil {
		fields = fields.set("model", b.model)
	}
	if b.tools != nil {
		fields = fields.set("tools", b.tools)
	}
	data, err := json.Marshal(obj{{"agent", fields}})
	if err != nil {
		return nil, err
	}
	def, err := Parse(data, BuilderSource, opts...)
	if err != nil {
		return nil, err
	}
	def.File = ""
	return def, nil
}
