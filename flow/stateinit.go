package flow

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/troupe-dev/troupe/schema"
)

// stateInit builds the initial state of each run.
type stateInit struct {
	dflt   map[string]any
	schema *schema.Schema // nil for dict state
	warn   string
	// keys and vals list dflt, so each run copies it without ranging over
	// the map; dfltID is dflt's id when it has one.
	keys   []string
	vals   []any
	hasID  bool
	dfltID string
	// size is the largest state an earlier run ended with (up to
	// maxSizeHint), so new states are made big enough at once instead of
	// growing as methods add keys.
	size atomic.Int32
	ids  *ids
}

const maxSizeHint = 256

// observe notes the size of a finished run's state.
func (st *stateInit) observe(n int) {
	if n > maxSizeHint {
		n = maxSizeHint
	}
	if int32(n) > st.size.Load() {
		st.size.Store(int32(n))
	}
}

// index lists the default state for initial and sets up its ids.
func (st *stateInit) index() *stateInit {
	st.ids = newIDs()
	st.keys, st.vals = st.keys[:0], st.vals[:0]
	for k, v := range st.dflt {
		st.keys = append(st.keys, k)
		st.vals = append(st.vals, v)
	}
	id, ok := st.dflt["id"]
	st.hasID = ok
	st.dfltID, _ = id.(string)
	return st
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

// initial returns a new state for one run and its id: a copy of the
// default, an id, and the inputs merged in (validated against the schema
// when there is one).
//
// A stored state (restored by id) replaces the default.
//
// A run not given an id gets one from src, or from st's own generator when
// src is nil.
func (st *stateInit) initial(stored, inputs map[string]any, logger *slog.Logger, flowName string, src IDSource) (map[string]any, string, error) {
	if st.warn != "" {
		logger.Warn(fmt.Sprintf("Flow %q %s", flowName, st.warn))
	}
	var state map[string]any
	var id string
	hasID := false
	if stored != nil {
		state = make(map[string]any, len(stored)+len(inputs)+1)
		maps.Copy(state, stored)
		var v any
		v, hasID = state["id"]
		id, _ = v.(string)
	} else {
		state = make(map[string]any, max(len(st.keys)+len(inputs)+1, int(st.size.Load())))
		for i, k := range st.keys {
			state[k] = st.vals[i]
		}
		hasID, id = st.hasID, st.dfltID
	}
	rest := false
	for k, v := range inputs {
		if k != "id" {
			state[k] = normalize(v)
			rest = true
		} else if v != nil {
			id, hasID = fmt.Sprint(v), true
			state["id"] = id
		}
	}
	if !hasID {
		if src != nil {
			id = src.NewID()
		} else {
			id = st.ids.next()
		}
		state["id"] = id
	}
	if !rest || st.schema == nil {
		return state, id, nil
	}
	coerced := st.schema.Coerce(state)
	if err := st.schema.Validate(coerced); err != nil {
		return nil, "", &InputError{Err: err}
	}
	return coerced, id, nil
}

// ids makes run ids: version 4 UUIDs drawn from a ChaCha8 generator
// seeded from crypto/rand, so an id tells nothing about the next one.
// ChaCha8 is a cryptographically strong generator; reading crypto/rand for
// every id instead costs a system call, about 140 ns, a tenth of a
// BenchmarkW3Router/go run.
type ids struct {
	mu  sync.Mutex
	gen *rand.ChaCha8
}

func newIDs() *ids {
	var seed [32]byte
	cryptorand.Read(seed[:]) // never fails (crypto/rand.Read's contract)
	return &ids{gen: rand.NewChaCha8(seed)}
}

// next returns a new id.
func (s *ids) next() string {
	s.mu.Lock()
	hi, lo := s.gen.Uint64(), s.gen.Uint64()
	s.mu.Unlock()
	return formatUUID(hi, lo)
}

// formatUUID writes hi and lo as a version 4 UUID.
func formatUUID(hi, lo uint64) string {
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 9562 variant
	var text [32]byte
	binary.BigEndian.PutUint64(text[0:], hex8(uint32(hi>>32)))
	binary.BigEndian.PutUint64(text[8:], hex8(uint32(hi)))
	binary.BigEndian.PutUint64(text[16:], hex8(uint32(lo>>32)))
	binary.BigEndian.PutUint64(text[24:], hex8(uint32(lo)))
	var out [36]byte
	copy(out[0:8], text[0:8])
	out[8] = '-'
	copy(out[9:13], text[8:12])
	out[13] = '-'
	copy(out[14:18], text[12:16])
	out[18] = '-'
	copy(out[19:23], text[16:20])
	out[23] = '-'
	copy(out[24:36], text[20:32])
	return string(out[:])
}

// hex8 returns the eight lower-case hex digits of v as the bytes of a
// uint64, first digit in the top byte: each nibble is spread into its own
// byte, then turned into '0'-'9' or 'a'-'f' for all eight bytes at once.
// Formatting ids a digit at a time cost BenchmarkW3Router/go about 3% a
// run.
func hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	// Each byte now holds one nibble, v's first digit in the top byte.
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101 // 1 where the nibble is 10-15
	return x + 0x3030303030303030 + letters*0x27
}
