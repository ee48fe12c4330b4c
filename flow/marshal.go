package flow

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"
)

// ErrNotSerializable is wrapped by YAML and JSON when a definition holds
// something the crewai.flow/v1 format cannot express: a Go function body
// without a ref, or a value that is not JSON data.
var ErrNotSerializable = errors.New("flow: definition cannot be serialised")

// YAML renders the definition as a crewai.flow/v1 YAML document that Parse
// reads back into an equal Definition.
//
// Keys keep the format's order (schema, name, description, state, config,
// persist, conversational, methods) and methods keep declaration order;
// free-form maps are written with sorted keys. Strings that a YAML 1.1
// reader would take for another type ("yes", "1.0", "null") are quoted.
// A method whose body is a Go function with no Ref fails with an error
// wrapping ErrNotSerializable.
func (d *Definition) YAML() ([]byte, error) {
	doc, err := d.document()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("flow: encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("flow: encode YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// MarshalYAML returns the definition's document as a *yaml.Node, so that
// go.yaml.in/yaml/v3 encodes a Definition, alone or inside other values,
// exactly as YAML does.
func (d *Definition) MarshalYAML() (any, error) { return d.document() }

// JSON renders the definition as an indented crewai.flow/v1 JSON document
// with the same keys, in the same order, as YAML.
func (d *Definition) JSON() ([]byte, error) {
	doc, err := d.document()
	if err != nil {
		return nil, err
	}
	out, err := appendJSON(make([]byte, 0, 1024), doc, 0)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// MarshalJSON implements json.Marshaler with the document of JSON.
func (d *Definition) MarshalJSON() ([]byte, error) { return d.JSON() }

// docWriter builds the document tree and keeps the first error.
type docWriter struct{ err error }

func (w *docWriter) fail(path, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("%w: %s: %s", ErrNotSerializable, path, fmt.Sprintf(format, args...))
	}
}

func (d *Definition) document() (*yaml.Node, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil definition", ErrNotSerializable)
	}
	w := &docWriter{}
	doc := newDocMap()
	schema := d.Schema
	if schema == "" {
		schema = SchemaV1
	}
	doc.add("schema", strNode(schema))
	doc.add("name", strNode(d.Name))
	if d.Description != "" {
		doc.add("description", strNode(d.Description))
	}
	if d.State != nil {
		doc.add("state", w.stateNode(d.State))
	}
	if c := w.configNode(&d.Config); c != nil {
		doc.add("config", c)
	}
	if d.Persist != nil {
		doc.add("persist", w.persistNode("persist", d.Persist))
	}
	if d.Conversational != nil {
		doc.add("conversational", w.conversationalNode(d.Conversational))
	}
	methods := newDocMap()
	for _, m := range d.Methods {
		if m != nil {
			methods.add(m.Name, w.methodNode(m))
		}
	}
	doc.add("methods", methods.Node)
	if w.err != nil {
		return nil, w.err
	}
	return doc.Node, nil
}

func (w *docWriter) stateNode(s *StateSpec) *yaml.Node {
	m := newDocMap()
	m.add("type", strNode(string(s.Type)))
	if s.Ref != "" {
		m.add("ref", strNode(s.Ref))
	}
	if s.JSONSchema != nil {
		m.add("json_schema", w.dataNode("state.json_schema", s.JSONSchema))
	}
	if s.Default != nil {
		m.add("default", w.dataNode("state.default", s.Default))
	}
	return m.Node
}

// configNode writes the keys that differ from their defaults; nil when none.
func (w *docWriter) configNode(c *Config) *yaml.Node {
	m := newDocMap()
	if c.Tracing != nil {
		m.add("tracing", boolNode(*c.Tracing))
	}
	if c.Stream {
		m.add("stream", boolNode(true))
	}
	if c.Memory != nil {
		m.add("memory", w.dataNode("config.memory", c.Memory))
	}
	if c.InputProvider != "" {
		m.add("input_provider", strNode(c.InputProvider))
	}
	if c.SuppressFlowEvents {
		m.add("suppress_flow_events", boolNode(true))
	}
	if c.MaxMethodCalls != DefaultMaxMethodCalls {
		m.add("max_method_calls", intNode(int64(c.MaxMethodCalls)))
	}
	if c.DeferTraceFinalization {
		m.add("defer_trace_finalization", boolNode(true))
	}
	if cp := c.Checkpoint; cp != nil {
		switch {
		case cp.Settings != nil:
			m.add("checkpoint", w.dataNode("config.checkpoint", cp.Settings))
		case cp.Location == "" || cp.Location == defaultCheckpointLocation:
			m.add("checkpoint", boolNode(true))
		default:
			m.add("checkpoint", w.dataNode("config.checkpoint", map[string]any{"location": cp.Location}))
		}
	}
	if b := c.Budgets; b != nil {
		bm := budgetMap(b.Run)
		if len(b.Agents) > 0 {
			am := newDocMap()
			for _, role := range slices.Sorted(maps.Keys(b.Agents)) {
				am.add(role, budgetMap(b.Agents[role]).Node)
			}
			bm.add("agents", am.Node)
		}
		m.add("budgets", bm.Node)
	}
	if len(m.Content) == 0 {
		return nil
	}
	return m.Node
}

// budgetMap writes the limits b sets.
func budgetMap(b Budget) docMap {
	m := newDocMap()
	if b.MaxTokens > 0 {
		m.add("max_tokens", intNode(b.MaxTokens))
	}
	if b.MaxCost > 0 {
		m.add("max_cost", floatNode(b.MaxCost))
	}
	if b.MaxWallTime > 0 {
		m.add("max_wall_time", strNode(b.MaxWallTime.String()))
	}
	if b.MaxToolCalls > 0 {
		m.add("max_tool_calls", intNode(int64(b.MaxToolCalls)))
	}
	return m
}

// defaultCheckpointLocation is where CrewAI keeps checkpoints by default.
const defaultCheckpointLocation = "./.checkpoints"

func (w *docWriter) persistNode(path string, p *Persist) *yaml.Node {
	m := newDocMap()
	m.add("enabled", boolNode(p.Enabled))
	if p.Verbose {
		m.add("verbose", boolNode(true))
	}
	if p.Backend != nil {
		m.add("persistence", w.dataNode(path+".persistence", p.Backend))
	}
	return m.Node
}

func (w *docWriter) conversationalNode(c *Conversational) *yaml.Node {
	settings := c.Settings
	implied := true
	if v, ok := settings["enabled"]; ok {
		implied, _ = laxBool(v)
	}
	if implied != c.Enabled {
		// Enabled wins over a settings map that says otherwise.
		next := make(map[string]any, len(settings)+1)
		for k, v := range settings {
			next[k] = v
		}
		next["enabled"] = c.Enabled
		settings = next
	}
	if settings == nil {
		settings = map[string]any{}
	}
	return w.dataNode("conversational", settings)
}

func (w *docWriter) methodNode(m *Method) *yaml.Node {
	path := join("methods", m.Name)
	n := newDocMap()
	if m.Description != "" {
		n.add("description", strNode(m.Description))
	}
	switch {
	case m.Start.When != nil:
		n.add("start", condNode(m.Start.When))
	case m.Start.Always:
		n.add("start", boolNode(true))
	}
	if m.Listen != nil {
		n.add("listen", condNode(m.Listen))
	}
	// human_feedback.emit makes the method a router by itself.
	if m.Router && (m.HumanFeedback == nil || len(m.HumanFeedback.Emit) == 0) {
		n.add("router", boolNode(true))
	}
	if m.Emit != nil {
		n.add("emit", strListNode(m.Emit, true))
	}
	if m.HumanFeedback != nil {
		n.add("human_feedback", w.humanFeedbackNode(join(path, "human_feedback"), m.HumanFeedback))
	}
	if m.Budget != nil {
		n.add("budgets", budgetMap(*m.Budget).Node)
	}
	if m.Persist != nil {
		n.add("persist", w.persistNode(join(path, "persist"), m.Persist))
	}
	if m.Do != nil {
		n.add("do", w.actionNode(join(path, "do"), m.Do))
	}
	return n.Node
}

// condNode writes a leaf as its event name and a combination in flow style,
// as in listen: {or: [a, b]}.
func condNode(c *Condition) *yaml.Node {
	if c.Op == "" {
		return strNode(c.Event)
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, it := range c.Items {
		if it != nil {
			list.Content = append(list.Content, condNode(it))
		}
	}
	m := newDocMap()
	m.Style = yaml.FlowStyle
	m.add(string(c.Op), list)
	return m.Node
}

func (w *docWriter) humanFeedbackNode(path string, h *HumanFeedback) *yaml.Node {
	m := newDocMap()
	m.add("message", strNode(h.Message))
	if h.Emit != nil {
		m.add("emit", strListNode(h.Emit, true))
	}
	switch {
	case h.LLM == nil:
		m.add("llm", nullNode())
	case !isDefaultFeedbackLLM(h.LLM):
		m.add("llm", w.llmNode(join(path, "llm"), h.LLM))
	}
	if h.DefaultOutcome != "" {
		m.add("default_outcome", strNode(h.DefaultOutcome))
	}
	if h.Metadata != nil {
		m.add("metadata", w.dataNode(join(path, "metadata"), h.Metadata))
	}
	if h.Provider != "" {
		m.add("provider", strNode(h.Provider))
	}
	if h.Learn {
		m.add("learn", boolNode(true))
	}
	if h.LearnSource != "hitl" {
		m.add("learn_source", strNode(h.LearnSource))
	}
	if h.LearnStrict {
		m.add("learn_strict", boolNode(true))
	}
	return m.Node
}

func isDefaultFeedbackLLM(c *LLMConfig) bool {
	return c.Short && c.Model == DefaultFeedbackLLM && c.MaxTokens == nil && len(c.Settings) == 0
}

// llmNode writes a short model string bare and a full LLM definition as a
// mapping with its settings merged back.
func (w *docWriter) llmNode(path string, c *LLMConfig) *yaml.Node {
	if c.Short && c.MaxTokens == nil && len(c.Settings) == 0 {
		return strNode(c.Model)
	}
	m := newDocMap()
	m.add("model", strNode(c.Model))
	if c.MaxTokens != nil {
		m.add("max_tokens", intNode(int64(*c.MaxTokens)))
	}
	w.addExtra(path, m, c.Settings, []string{"model", "max_tokens"})
	return m.Node
}

// addExtra appends the keys of extra, sorted, that are not already written
// and not listed in one of the skip lists.
func (w *docWriter) addExtra(path string, m docMap, extra map[string]any, skip ...[]string) {
	if len(extra) == 0 {
		return
	}
	written := make(map[string]bool, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		written[m.Content[i].Value] = true
	}
	for _, list := range skip {
		for _, s := range list {
			written[s] = true
		}
	}
	for _, k := range sortedKeys(extra) {
		if !written[k] {
			m.add(k, w.dataNode(join(path, k), extra[k]))
		}
	}
}
