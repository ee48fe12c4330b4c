package schema

import (
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// typeSet is a set of JSON types. The zero set means "unconstrained".
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeNames = [...]struct {
	t    typeSet
	name string
}{
	{tBoolean, "boolean"},
	{tInteger, "integer"},
	{tNumber, "number"},
	{tString, "string"},
	{tArray, "array"},
	{tObject, "object"},
	{tNull, "null"},
}

func typeFromName(name string) typeSet {
	for _, tn := range typeNames {
		if tn.name == name {
			return tn.t
		}
	}
	return 0
}

func (ts typeSet) has(t typeSet) bool { return ts&t != 0 }

// strings names the set; "integer" is left out when "number" (its superset)
// is in.
func (ts typeSet) strings() []string {
	if ts == 0 {
		return nil
	}
	out := make([]string, 0, 2)
	for _, tn := range typeNames {
		if tn.t == tInteger && ts.has(tNumber) {
			continue
		}
		if ts.has(tn.t) {
			out = append(out, tn.name)
		}
	}
	return out
}

// valueType returns the JSON type of canonical data; integral numbers are
// integers.
func valueType(v any) typeSet {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case int64:
		return tInteger
	case float64:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

// accepts reports whether a value of type t passes the type constraint ts.
func (ts typeSet) accepts(t typeSet) bool {
	if ts == 0 {
		return true
	}
	if t == tInteger {
		return ts&(tInteger|tNumber) != 0
	}
	return ts.has(t)
}

// typeResolver works out which JSON types a schema accepts, looking through
// $ref, allOf (intersection), anyOf and oneOf (union), enum and const. It
// remembers results, so shared sub-schemas are walked once, and treats a
// schema met again on its own path (a reference cycle) as unconstrained.
type typeResolver struct {
	memo map[*jsonschema.Schema]typeSet
	busy map[*jsonschema.Schema]bool
}

func newTypeResolver() *typeResolver {
	return &typeResolver{memo: map[*jsonschema.Schema]typeSet{}, busy: map[*jsonschema.Schema]bool{}}
}

func (r *typeResolver) types(s *jsonschema.Schema) typeSet {
	if s == nil || r.busy[s] {
		return 0
	}
	if t, ok := r.memo[s]; ok {
		return t
	}
	r.busy[s] = true
	t := r.compute(s)
	delete(r.busy, s)
	r.memo[s] = t
	return t
}

func (r *typeResolver) compute(s *jsonschema.Schema) typeSet {
	var own typeSet
	if s.Types != nil {
		for _, name := range s.Types.ToStrings() {
			own |= typeFromName(name)
		}
	}
	if own == 0 {
		switch {
		case s.Const != nil:
			own = valueType(normalize(*s.Const))
		case s.Enum != nil:
			for _, v := range s.Enum.Values {
				own |= valueType(normalize(v))
			}
		}
	}
	own = intersect(own, r.types(s.Ref))
	for _, sub := range s.AllOf {
		own = intersect(own, r.types(sub))
	}
	for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(group) == 0 {
			continue
		}
		var union typeSet
		for _, sub := range group {
			t := r.types(sub)
			if t == 0 {
				union = 0
				break
			}
			union |= t
		}
		own = intersect(own, union)
	}
	return own
}

// intersect combines two constraints; an unconstrained side does not
// narrow the other.
func intersect(a, b typeSet) typeSet {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	out := a & b
	// integer is a subset of number.
	if a.has(tNumber) && b.has(tInteger) || b.has(tNumber) && a.has(tInteger) {
		out |= tInteger
	}
	if out == 0 {
		// Contradictory schemas accept nothing; report the first side
		// rather than "anything".
		return a
	}
	return out
}
