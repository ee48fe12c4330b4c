package durable

import (
	"encoding/json"
	"fmt"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A CodeRequest is a code handler's call as an engine records it: its
// arguments, the payload that triggered the method, and a snapshot of the
// state. A handler that runs on another worker gets its own copy of the
// state; what it changed comes back as a Patch.
type CodeRequest struct {
	Args    map[string]any
	Trigger any
	State   map[string]any
}

// A CodeResult is what a code handler returned and how it changed the
// state.
type CodeResult struct {
	Value any
	Patch Patch
}

// A Patch is a change to a run's state ([flow.StatePatch]).
type Patch = flow.StatePatch

// Diff returns the patch that turns before into after ([flow.DiffState]).
func Diff(before, after map[string]any) (Patch, error) { return flow.DiffState(before, after) }

type wireCode struct {
	Args    json.RawMessage `json:"args,omitempty"`
	Trigger json.RawMessage `json:"trigger,omitempty"`
	State   json.RawMessage `json:"state,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Set     json.RawMessage `json:"set,omitempty"`
	Delete  []string        `json:"delete,omitempty"`
}

// EncodeCodeRequest encodes a code handler's call for the effect key.
func (c *Codec) EncodeCodeRequest(key string, r CodeRequest) ([]byte, error) {
	var w wireCode
	var err error
	if w.Args, err = dataOrNil(r.Args); err == nil {
		if w.Trigger, err = jsondata.Marshal(r.Trigger); err == nil {
			w.State, err = dataOrNil(r.State)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode code request: %w", key, err)
	}
	return c.marshalChecked(key, "code request", w)
}

// DecodeCodeRequest decodes what EncodeCodeRequest wrote.
func DecodeCodeRequest(b []byte) (CodeRequest, error) {
	var w wireCode
	if err := json.Unmarshal(b, &w); err != nil {
		return CodeRequest{}, fmt.Errorf("durable: decode code request: %w", err)
	}
	var r CodeRequest
	var err error
	if r.Args, err = mapOrNil(w.Args); err == nil {
		if r.Trigger, err = valueOrNil(w.Trigger); err == nil {
			r.State, err = mapOrNil(w.State)
		}
	}
	if err != nil {
		return CodeRequest{}, fmt.Errorf("durable: decode code request: %w", err)
	}
	return r, nil
}

// EncodeCodeResult encodes a code handler's result for the effect key.
func (c *Codec) EncodeCodeResult(key string, r CodeResult) ([]byte, error) {
	w := wireCode{Delete: r.Patch.Delete}
	var err error
	if w.Value, err = jsondata.Marshal(r.Value); err == nil {
		w.Set, err = dataOrNil(r.Patch.Set)
	}
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode code result: %w", key, err)
	}
	return c.marshalChecked(key, "code result", w)
}

// DecodeCodeResult decodes what EncodeCodeResult wrote.
func DecodeCodeResult(b []byte) (CodeResult, error) {
	var w wireCode
	if err := json.Unmarshal(b, &w); err != nil {
		return CodeResult{}, fmt.Errorf("durable: decode code result: %w", err)
	}
	r := CodeResult{Patch: Patch{Delete: w.Delete}}
	var err error
	if r.Value, err = valueOrNil(w.Value); err == nil {
		r.Patch.Set, err = mapOrNil(w.Set)
	}
	if err != nil {
		return CodeResult{}, fmt.Errorf("durable: decode code result: %w", err)
	}
	return r, nil
}

func (c *Codec) marshalChecked(key, what string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode %s: %w", key, what, err)
	}
	return b, c.check(key, what, b)
}

func valueOrNil(b json.RawMessage) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return jsondata.Decode(b)
}
