package durable

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/internal/jsondata"
)

// An Output is the decoded copy of a method result that is more than data:
// an agent's or a crew's output, which routes on its text (String) and
// reads as data in expressions (Map). A recorded result decodes to an
// Output, so a replayed run routes and reads it as the live run did.
type Output struct {
	Text string
	Data map[string]any
}

// String returns the output's text, as the original's String did.
func (o *Output) String() string { return o.Text }

// Map returns the output's data, as the original's Map did.
func (o *Output) Map() map[string]any { return o.Data }

type wireValue struct {
	// Text and Data are set for an Output, Value otherwise.
	Text  *string         `json:"text,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

type outputLike interface {
	String() string
	Map() map[string]any
}

// EncodeResult encodes a method's result for the effect key: data as
// Troupe data, and agent and crew outputs (values with both String and
// Map) with their text and data.
func (c *Codec) EncodeResult(key string, v any) ([]byte, error) {
	var w wireValue
	var err error
	if o, ok := v.(outputLike); ok {
		text := o.String()
		w.Text = &text
		if w.Data, err = jsondata.Marshal(o.Map()); err != nil {
			return nil, fmt.Errorf("durable: effect %s: encode result: %w", key, err)
		}
	} else if w.Value, err = jsondata.Marshal(flow.Data(v)); err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode result: %w", key, err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode result: %w", key, err)
	}
	return b, c.check(key, "result", b)
}

// DecodeResult decodes what EncodeResult wrote: Troupe data, or an
// *Output.
func DecodeResult(b []byte) (any, error) {
	var w wireValue
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("durable: decode result: %w", err)
	}
	if w.Text != nil {
		m, err := mapOrNil(w.Data)
		if err != nil {
			return nil, fmt.Errorf("durable: decode result: %w", err)
		}
		return &Output{Text: *w.Text, Data: m}, nil
	}
	if len(w.Value) == 0 || bytes.Equal(w.Value, []byte("null")) {
		return nil, nil
	}
	return DecodeValue(w.Value)
}
