package durable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

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

// A Patch is a change to a run's state: keys set (to Troupe data) and keys
// deleted. Patches of methods that finish one after another apply in that
// order.
type Patch struct {
	Set    map[string]any `json:"set,omitempty"`
	Delete []string       `json:"delete,omitempty"`
}

// Empty reports whether p changes nothing.
func (p Patch) Empty() bool { return len(p.Set) == 0 && len(p.Delete) == 0 }

// Diff returns the patch that turns before into after. Values are compared
// by their encoding, so 1 and 1.0 differ.
func Diff(before, after map[string]any) (Patch, error) {
	var p Patch
	for k, v := range after {
		old, had := before[k]
		if had {
			same, err := sameData(old, v)
			if err != nil {
				return Patch{}, fmt.Errorf("durable: state key %q: %w", k, err)
			}
			if same {
				continue
			}
		}
		if p.Set == nil {
			p.Set = map[string]any{}
		}
		p.Set[k] = v
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			p.Delete = append(p.Delete, k)
		}
	}
	slices.Sort(p.Delete)
	return p, nil
}

func sameData(a, b any) (bool, error) {
	x, err := jsondata.Marshal(a)
	if err != nil {
		return false, err
	}
	y, err := jsondata.Marshal(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}

// Apply changes state by p.
func (p Patch) Apply(state map[string]any) {
	for _, k := range p.Delete {
		delete(state, k)
	}
	for k, v := range p.Set {
		state[k] = v
	}
}

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
