package flow

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A StatePatch is a change to a run's state: keys set (to data) and keys
// deleted. A method run on another machine reports its changes as one, and
// patches apply in the order their methods complete.
type StatePatch struct {
	Set    map[string]any `json:"set,omitempty"`
	Delete []string       `json:"delete,omitempty"`
}

// Empty reports whether p changes nothing.
func (p StatePatch) Empty() bool { return len(p.Set) == 0 && len(p.Delete) == 0 }

// Apply changes state by p.
func (p StatePatch) Apply(state map[string]any) {
	for _, k := range p.Delete {
		delete(state, k)
	}
	for k, v := range p.Set {
		state[k] = v
	}
}

// DiffState returns the patch that turns before into after. Values are
// compared by their encoding as data, so 1 and 1.0 differ.
func DiffState(before, after map[string]any) (StatePatch, error) {
	var p StatePatch
	for k, v := range after {
		if old, had := before[k]; had {
			same, err := sameData(old, v)
			if err != nil {
				return StatePatch{}, fmt.Errorf("flow: state key %q: %w", k, err)
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
