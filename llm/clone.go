package llm

import "maps"

// Clone returns a deep copy of r: messages, parts, tool calls, stop
// sequences, pointers and Extra are copied, so changing the copy never changes
// r. Tool parameter schemas and the response schema's map are shared, as
// their documentation says they are never changed.
func (r *Request) Clone() *Request {
	if r == nil {
		return nil
	}
	c := *r
	c.Messages = CloneMessages(r.Messages)
	if r.Tools != nil {
		c.Tools = append([]ToolSpec(nil), r.Tools...)
	}
	if r.ResponseSchema != nil {
		rs := *r.ResponseSchema
		c.ResponseSchema = &rs
	}
	if r.Temperature != nil {
		v := *r.Temperature
		c.Temperature = &v
	}
	if r.TopP != nil {
		v := *r.TopP
		c.TopP = &v
	}
	if r.Seed != nil {
		v := *r.Seed
		c.Seed = &v
	}
	if r.Stop != nil {
		c.Stop = append([]string(nil), r.Stop...)
	}
	c.Extra = cloneMap(r.Extra)
	return &c
}

// CloneMessages returns a deep copy of msgs.
func CloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Clone()
	}
	return out
}

// Clone returns a deep copy of m.
func (m Message) Clone() Message {
	if m.Parts != nil {
		parts := make([]Part, len(m.Parts))
		for i, p := range m.Parts {
			if p.Data != nil {
				p.Data = append([]byte(nil), p.Data...)
			}
			parts[i] = p
		}
		m.Parts = parts
	}
	if m.ToolCalls != nil {
		calls := make([]ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			if c.Arguments != nil {
				c.Arguments = append([]byte(nil), c.Arguments...)
			}
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}

// cloneMap deep-copies JSON data held in a map.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

// cloneValue deep-copies JSON data; other values are returned as they are.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneMap(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]string:
		return maps.Clone(v)
	case []string:
		return append([]string(nil), v...)
	}
	return v
}
