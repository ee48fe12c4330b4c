package agent

import "go.yaml.in/yaml/v3"

func (d *decoder) stateMachine(v *value, path string) *StateMachine {
	m := &StateMachine{}
	d.pos[path] = v.at
	hasInitial, hasStates := false, false
	ok := d.mapping(v, path, stateMachineKeys, func(key, p string, val *value) {
		switch key {
		case "initial":
			hasInitial = true
			m.Initial = d.str(val, p)
		case "states":
			hasStates = true
			if val.kind != yaml.MappingNode {
				d.errorf(val.at, p, "not_mapping", "want a mapping of state names to states, got %s", val.describe())
				return
			}
			if len(val.keys) == 0 {
				d.errorf(val.at, p, "missing", "a state machine needs at least one state")
			}
			for i, k := range val.keys {
				sp := join(p, k.text)
				d.pos[sp] = k.at
				m.States = append(m.States, d.state(k.text, val.vals[i], sp))
			}
		case "events":
			if val.kind != yaml.MappingNode {
				d.errorf(val.at, p, "not_mapping", "want a mapping of event names to CEL conditions, got %s", val.describe())
				return
			}
			for i, k := range val.keys {
				ep := join(p, k.text)
				d.pos[ep] = k.at
				ev := Event{Name: k.text}
				if c := val.vals[i]; !c.isNull() {
					d.pos[ep] = c.at
					ev.Condition = d.str(c, ep)
				}
				m.Events = append(m.Events, ev)
			}
		}
	})
	if !ok {
		return nil
	}
	if !hasInitial {
		d.errorf(v.at, path, "missing", "missing required key \"initial\"")
	}
	if !hasStates {
		d.errorf(v.at, path, "missing", "missing required key \"states\"")
	}
	return m
}

func (d *decoder) state(name string, v *value, path string) State {
	s := State{Name: name}
	if v.isNull() {
		return s
	}
	d.mapping(v, path, stateKeys, func(key, p string, val *value) {
		switch key {
		case "tools":
			s.Tools = d.strings(val, p)
			if s.Tools == nil {
				s.Tools = []string{}
			}
		case "final":
			s.Final = d.boolean(val, p)
		case "on":
			if val.kind != yaml.MappingNode {
				d.errorf(val.at, p, "not_mapping", "want a mapping of events to target states, got %s", val.describe())
				return
			}
			for i, k := range val.keys {
				tp := join(p, k.text)
				d.pos[tp] = val.vals[i].at
				s.On = append(s.On, Transition{Event: k.text, Target: d.str(val.vals[i], tp)})
			}
		}
	})
	return s
}
