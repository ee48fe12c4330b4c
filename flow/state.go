package flow

import (
	"maps"
	"sync"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// State is the mutable state of one run, shared by its methods. All methods
// are safe for concurrent use.
//
// State holds JSON data (nil, bool, int64, float64, string, []any and
// map[string]any), which CEL reads, snapshots persist and a resumed run gets
// back. Set and Update convert other Go values by the rule that applies to
// a handler's output: Go integers become int64, float32 float64, []string
// and map[string]string the generic forms, a struct (or anything else) what
// encoding/json makes of it. So a struct stored with Set reads back as a
// map[string]any, keyed by its JSON field names.
//
// Values stored in State are treated as immutable: Get returns them as
// stored, so change a nested map or list by storing a new one with Set or
// Update rather than editing it in place.
type State struct {
	mu *sync.Mutex
	m  map[string]any
	// unsettled is set when Update may have stored values that are not
	// JSON data; they are converted before anything reads them. Neither
	// Update nor the end of a run converts them: walking the whole state
	// costs BenchmarkW2Fanout8/go, whose join uses Update, 7% a run.
	unsettled bool
}

// settled returns the state map with every value JSON data; s.mu must be
// held. It is small enough to be inlined where CEL reads the state.
func (s *State) settled() map[string]any {
	if s.unsettled {
		s.settle()
	}
	return s.m
}

// settle converts what Update stored; s.mu must be held.
func (s *State) settle() {
	for k, v := range s.m {
		if !jsondata.IsData(v) {
			s.m[k] = normalize(v)
		}
	}
	s.unsettled = false
}

// Get returns the value of key and whether it is set.
func (s *State) Get(key string) (any, bool) {
	s.mu.Lock()
	v, ok := s.settled()[key]
	s.mu.Unlock()
	return v, ok
}

// Value returns the value of key, or nil.
func (s *State) Value(key string) any {
	v, _ := s.Get(key)
	return v
}

// Set stores value under key, converted to JSON data.
func (s *State) Set(key string, value any) {
	value = toData(value)
	s.mu.Lock()
	s.m[key] = value
	s.mu.Unlock()
}

// toData is normalize with the commonest values (none, integers and
// strings) tested inline: the call to normalize cost BenchmarkW1Chain10/go
// and W3Router/go, whose methods Set integers and strings, 2-3% a run.
func toData(v any) any {
	switch v.(type) {
	case nil, int64, string:
		return v
	}
	return normalize(v)
}

// Delete removes key.
func (s *State) Delete(key string) {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

// Update calls fn with the state map while holding the state's lock, for
// changes that read and write several keys at once. fn must not keep m
// nor call the State's methods. What fn stores is converted to JSON data,
// as Set does, when the state is next read (by Get, by CEL, for a
// snapshot); a Result's State may hold it as it was stored when nothing
// read the state after the Update.
func (s *State) Update(fn func(m map[string]any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.m)
	s.unsettled = true
}

// ID returns the run's state id.
func (s *State) ID() string {
	id, _ := s.Value("id").(string)
	return id
}

// Snapshot returns a shallow copy of the state.
func (s *State) Snapshot() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.settled())
}
