package durable

import (
	"context"
	"fmt"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
)

// A Recorder keeps the encoded result of every effect by key, as an
// engine's step records do.
type Recorder interface {
	Record(ctx context.Context, key string, kind flow.EffectKind, result []byte) error
}

// Interceptor returns a flow interceptor that passes the result of every
// effect through the codec and returns the decoded copy, so a live run
// sees exactly what a replay from the record will see. When rec is not
// nil, it gets every encoded result. A result over the size limit fails
// the effect with a *PayloadTooLargeError naming its key.
func (c *Codec) Interceptor(rec Recorder) flow.Interceptor {
	return func(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
		out, err := next(ctx)
		if err != nil {
			return nil, err
		}
		key := e.Key()
		b, err := c.Encode(key, e.Kind, out)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			if err := rec.Record(ctx, key, e.Kind, b); err != nil {
				return nil, fmt.Errorf("durable: effect %s: record: %w", key, err)
			}
		}
		return Decode(e.Kind, b)
	}
}

// Encode encodes the result of an effect of the given kind: a model
// call's *llm.Response, a tool call's result (as its observation text), a
// method's result.
func (c *Codec) Encode(key string, kind flow.EffectKind, v any) ([]byte, error) {
	switch kind {
	case flow.EffectLLM:
		r, ok := v.(*llm.Response)
		if !ok {
			return nil, fmt.Errorf("durable: effect %s: a model call returned %T, not *llm.Response", key, v)
		}
		return c.EncodeResponse(key, r)
	case flow.EffectTool:
		return c.EncodeTool(key, ToolResult{Text: action.ObservationText(v)})
	}
	return c.EncodeResult(key, v)
}

// Decode decodes what Encode wrote for an effect of the given kind: an
// *llm.Response, a tool's observation text, or a method's result.
func Decode(kind flow.EffectKind, b []byte) (any, error) {
	switch kind {
	case flow.EffectLLM:
		return DecodeResponse(b)
	case flow.EffectTool:
		r, err := DecodeToolResult(b)
		return r.Text, err
	}
	return DecodeResult(b)
}
