package flow

import (
	"strings"
)

// canon turns builder input into the Definition the decoder would produce
// for the same YAML: values copied and converted to JSON data, defaults
// filled in, and the shape rules the decoder enforces (and Validate cannot
// see in a Definition) reported with the decoder's messages.
type canon struct {
	*reporter
	// invalid holds the paths of triggers that were given but rejected, so
	// that Build does not also warn that the method has no trigger.
	invalid map[string]bool
}

func (c *canon) data(path string, m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	v, err := jsonData(m)
	if err != nil {
		c.errorf(subPath(path, err.path), "data_type", "%s", err.Error())
		return nil
	}
	out, _ := v.(map[string]any)
	return out
}

func (c *canon) state(s *StateSpec) *StateSpec {
	if s == nil {
		return nil
	}
	out := &StateSpec{Type: s.Type, Ref: s.Ref}
	known, ok := stateTypes[s.Type]
	switch {
	case s.Type == "":
		c.errorf("state.type", "union_tag_not_found", "Unable to extract tag using discriminator 'type' [type=union_tag_not_found]: add type: dict, json_schema, pydantic or unknown")
	case !ok:
		c.errorf("state.type", "union_tag_invalid", "Input tag %s found using 'type' does not match any of the expected tags: 'dict', 'json_schema', 'pydantic', 'unknown' [type=union_tag_invalid]", pyRepr(s.Type))
	default:
		set := map[string]bool{"ref": s.Ref != "", "json_schema": s.JSONSchema != nil}
		for _, k := range []string{"json_schema", "ref"} {
			if set[k] && !contains(known, k) {
				c.errorf(join("state", k), "extra_forbidden", "Extra inputs are not permitted [type=extra_forbidden]: %q is not a field here; allowed: %s.", k, strings.Join(known, ", "))
			}
		}
		if s.Type == "json_schema" && s.JSONSchema == nil {
			c.errorf("state.json_schema", "missing", "Field required [type=missing]: json_schema state needs a json_schema")
		}
	}
	out.Default = c.data("state.default", s.Default)
	out.JSONSchema = c.data("state.json_schema", s.JSONSchema)
	return out
}

func (c *canon) config(in Config) Config {
	out := in
	if in.Tracing != nil {
		t := *in.Tracing
		out.Tracing = &t
	}
	out.Memory = c.data("config.memory", in.Memory)
	if cp := in.Checkpoint; cp != nil {
		// As loaded: checkpoint: true has no settings; a mapping has them,
		// and its location (default ./.checkpoints) is the Location.
		settings := c.data("config.checkpoint", cp.Settings)
		if cp.Location != "" && cp.Location != defaultCheckpointLocation || settings != nil {
			if settings == nil {
				settings = map[string]any{}
			}
			if _, ok := settings["location"]; !ok && cp.Location != "" {
				settings["location"] = cp.Location
			}
		}
		loc, _ := settings["location"].(string)
		if loc == "" {
			loc = defaultCheckpointLocation
		}
		out.Checkpoint = &Checkpoint{Location: loc, Settings: settings}
	}
	return out
}

func (c *canon) persist(path string, p *Persist) *Persist {
	if p == nil {
		return nil
	}
	return &Persist{Enabled: p.Enabled, Verbose: p.Verbose, Backend: c.data(join(path, "persistence"), p.Backend)}
}

func (c *canon) conversational(cv *Conversational) *Conversational {
	if cv == nil {
		return nil
	}
	out := &Conversational{Enabled: cv.Enabled, Settings: c.data("conversational", cv.Settings)}
	if v, ok := out.Settings["enabled"]; ok {
		b, ok := laxBool(v)
		if !ok {
			c.errorf("conversational.enabled", "bool_parsing", "Input should be a valid boolean [type=bool_parsing]: use true or false")
		}
		out.Enabled = b
	}
	return out
}

func (c *canon) method(in *Method) *Method {
	p := join("methods", in.Name)
	m := &Method{
		Name:        in.Name,
		Description: in.Description,
		Router:      in.Router,
		Emit:        cloneStrings(in.Emit),
		Persist:     c.persist(join(p, "persist"), in.Persist),
	}
	if in.Do != nil {
		m.Do = c.action(join(p, "do"), in.Do, false)
	}
	m.Start = Start{Always: in.Start.Always}
	if in.Start.When != nil {
		m.Start = Start{When: c.condition(join(p, "start"), in.Start.When)}
		if m.Start.When == nil {
			c.invalid[p] = true
		}
	}
	if in.Listen != nil {
		if m.Listen = c.condition(join(p, "listen"), in.Listen); m.Listen == nil {
			c.invalid[p] = true
		}
	}
	if h := in.HumanFeedback; h != nil {
		m.HumanFeedback = c.humanFeedback(join(p, "human_feedback"), h)
		// CrewAI canonicalises human_feedback.emit into a router.
		if len(m.HumanFeedback.Emit) > 0 {
			if len(m.Emit) > 0 {
				c.warnf(join(p, "emit"), "emit_replaced", "emit is ignored because human_feedback.emit declares this router's outcomes")
			}
			m.Router = true
			m.Emit = nil
		}
	}
	return m
}

// condition copies c, rejecting the shapes the decoder rejects.
func (c *canon) condition(path string, in *Condition) *Condition {
	if in.Op == "" {
		return On(in.Event)
	}
	if in.Op != "and" && in.Op != "or" {
		c.errorf(path, "condition_shape", "a condition mapping must have exactly one key, and or or, with a list of conditions (for example {or: [a, b]}); got keys [%s]", in.Op)
		return nil
	}
	p := join(path, string(in.Op))
	if len(in.Items) == 0 {
		c.errorf(p, "condition_shape", "%s needs at least one condition", in.Op)
		return nil
	}
	out := &Condition{Op: in.Op, Items: make([]*Condition, 0, len(in.Items))}
	for i, it := range in.Items {
		if it == nil {
			c.errorf(index(p, i), "condition_type", "a condition must be an event name or an {and: [...]}/{or: [...]} mapping, got null")
			return nil
		}
		sub := c.condition(index(p, i), it)
		if sub == nil {
			return nil
		}
		out.Items = append(out.Items, sub)
	}
	return out
}

func (c *canon) humanFeedback(path string, in *HumanFeedback) *HumanFeedback {
	h := *in
	h.Emit = cloneStrings(in.Emit)
	h.Metadata = c.data(join(path, "metadata"), in.Metadata)
	if h.LearnSource == "" {
		h.LearnSource = "hitl"
	}
	if in.LLM == nil {
		h.LLM = Model(DefaultFeedbackLLM)
	} else {
		h.LLM = c.llm(join(path, "llm"), in.LLM)
	}
	return &h
}

// llm copies a model choice; a bare empty model means none, as llm: "".
func (c *canon) llm(path string, in *LLMConfig) *LLMConfig {
	if in == nil || in.Short && in.Model == "" && in.MaxTokens == nil && len(in.Settings) == 0 {
		return nil
	}
	out := &LLMConfig{Model: in.Model, Short: in.Short, Settings: c.data(path, in.Settings)}
	if in.MaxTokens != nil {
		n := *in.MaxTokens
		out.MaxTokens = &n
		out.Short = false
	}
	if len(out.Settings) > 0 {
		out.Short = false
	}
	if in.Model == "" {
		c.errorf(join(path, "model"), "missing", "Field required [type=missing]: add %q", "model")
	}
	return out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append(make([]string, 0, len(s)), s...)
}

func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	n := *p
	return &n
}

// subPath joins a base path and a relative one that may start with an index.
func subPath(base, rel string) string {
	switch {
	case rel == "":
		return base
	case base == "":
		return rel
	case rel[0] == '[':
		return base + rel
	}
	return base + "." + rel
}
