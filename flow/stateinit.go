package flow

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"

	"github.com/troupe-dev/troupe/schema"
)

// stateInit builds the initial state of each run.
type stateInit struct {
	dflt   map[string]any
	schema *schema.Schema // nil for dict state
	warn   string
}

func compileState(def *Definition, models map[string]map[string]any) (*stateInit, error) {
	s := def.State
	st := &stateInit{}
	if s == nil {
		return st, nil
	}
	jsonSchema := s.JSONSchema
	if s.Type == "pydantic" && s.Ref != "" {
		if m, ok := models[s.Ref]; ok {
			jsonSchema = m
		} else if jsonSchema != nil {
			st.warn = fmt.Sprintf("state ref %q is not registered (flow.WithStateSchema); using state.json_schema", s.Ref)
		}
	}
	switch s.Type {
	case "dict":
		st.dflt = s.Default
		return st, nil
	case "unknown":
		st.dflt = s.Default
		st.warn = "declares state of unknown type; falling back to dict state"
		return st, nil
	}
	if jsonSchema == nil {
		st.dflt = s.Default
		st.warn = fmt.Sprintf("declares %s state but neither ref nor json_schema produced a model; falling back to dict state", s.Type)
		return st, nil
	}
	sc, err := schema.CompileState(jsonSchema)
	if err != nil {
		return nil, fmt.Errorf("flow: state.json_schema: %w", err)
	}
	st.schema = sc
	st.dflt = sc.Defaults()
	if st.dflt == nil {
		st.dflt = map[string]any{}
	}
	maps.Copy(st.dflt, s.Default)
	if err := sc.Validate(sc.Coerce(st.dflt)); err != nil && !onlyMissing(err) {
		return nil, fmt.Errorf("flow: state.default does not match state.json_schema: %w", err)
	}
	st.dflt = sc.Coerce(st.dflt)
	return st, nil
}

func onlyMissing(err error) bool {
	var ve *schema.ValidationError
	if !errors.As(err, &ve) {
		return false
	}
	for _, f := range ve.Fields {
		if f.Kind != "missing" {
			return false
		}
	}
	return true
}

// initial returns a new state for one run: a copy of the default, an id,
// and the inputs merged in (validated against the schema when there is one).
//
// A stored state (restored by id) replaces the default.
func (st *stateInit) initial(stored, inputs map[string]any, logger *slog.Logger, flowName string) (map[string]any, error) {
	if st.warn != "" {
		logger.Warn(fmt.Sprintf("Flow %q %s", flowName, st.warn))
	}
	base := st.dflt
	if stored != nil {
		base = stored
	}
	state := make(map[string]any, len(base)+len(inputs)+1)
	maps.Copy(state, base)
	if _, ok := state["id"]; !ok {
		state["id"] = newID()
	}
	if id, ok := inputs["id"]; ok && id != nil {
		state["id"] = fmt.Sprint(id)
	}
	rest := 0
	for k := range inputs {
		if k != "id" {
			rest++
		}
	}
	if rest == 0 {
		return state, nil
	}
	for k, v := range inputs {
		if k != "id" {
			state[k] = normalize(v)
		}
	}
	if st.schema == nil {
		return state, nil
	}
	coerced := st.schema.Coerce(state)
	if err := st.schema.Validate(coerced); err != nil {
		return nil, &InputError{Err: err}
	}
	return coerced, nil
}

// newID returns a random UUID (version 4) as text. The bits come from
// math/rand/v2's per-thread generator, which is seeded from the operating
// system: ids are unique, not secret.
func newID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
