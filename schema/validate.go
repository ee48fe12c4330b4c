package schema

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// A FieldError is one failing field, in pydantic's terms.
type FieldError struct {
	// Path is the dotted location of the value: "count", "items.0.name";
	// "" for the validated value itself.
	Path string
	// Message says what is wrong, worded like pydantic
	// ("Input should be a valid integer, unable to parse string as an integer").
	Message string
	// Kind is pydantic's error type: "missing", "extra_forbidden",
	// "int_parsing", "string_type", "literal_error", ...
	Kind string
	// Input is the offending value; nil for a missing field.
	Input any
}

// String returns "path: message", or the message alone at the root.
func (f FieldError) String() string {
	if f.Path == "" {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// A ValidationError lists every field that failed validation.
type ValidationError struct {
	// Title names the model, as pydantic does ("CounterState"); it may be
	// empty for schemas without a title.
	Title string
	// Fields holds one entry per problem, in property order.
	Fields []FieldError
}

// Error reads like pydantic's summary, on one line:
//
//	1 validation error for CounterState: count: Input should be a valid integer, unable to parse string as an integer
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(e.Fields)))
	if len(e.Fields) == 1 {
		b.WriteString(" validation error")
	} else {
		b.WriteString(" validation errors")
	}
	if e.Title != "" {
		b.WriteString(" for ")
		b.WriteString(e.Title)
	}
	for i, f := range e.Fields {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// OnlyMissing reports whether every problem is a missing required field,
// the case in which CrewAI builds the state anyway and waits for inputs.
func (e *ValidationError) OnlyMissing() bool {
	for _, f := range e.Fields {
		if f.Kind != "missing" {
			return false
		}
	}
	return len(e.Fields) > 0
}

// Validate checks v against the schema. It returns nil or a
// *ValidationError naming every failing field. Validate does not coerce:
// use Coerce first, or Conform, for pydantic's lax mode.
func (s *Schema) Validate(v any) error {
	v = normalize(v)
	if s.quick != nil && s.quick.valid(v, 0) {
		return nil
	}
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("schema: validate: %w", err)
	}
	return &ValidationError{Title: s.title, Fields: s.fieldErrors(ve, v)}
}

// Conform coerces v like pydantic's lax mode and validates the result,
// which is what pydantic's model_validate does with a dict. It returns the
// coerced map, or nil and a *ValidationError.
func (s *Schema) Conform(v map[string]any) (map[string]any, error) {
	out := s.Coerce(v)
	if err := s.Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}

// leaf is one failing keyword at one instance location.
type leaf struct {
	loc  []string
	kind jsonschema.ErrorKind
	want typeSet // merged wanted types, for type errors
}

func (s *Schema) fieldErrors(ve *jsonschema.ValidationError, root any) []FieldError {
	var leaves []leaf
	collectLeaves(ve, &leaves)
	leaves = mergeTypeLeaves(leaves)

	var out []FieldError
	for _, l := range leaves {
		out = append(out, describeLeaf(l, root)...)
	}
	slices.SortStableFunc(out, s.compareFields)
	return slices.CompactFunc(out, func(a, b FieldError) bool {
		return a.Path == b.Path && a.Kind == b.Kind && a.Message == b.Message
	})
}

// collectLeaves flattens the library's error tree: groups, $ref, allOf,
// anyOf and oneOf carry their causes; everything else is a leaf.
func collectLeaves(e *jsonschema.ValidationError, out *[]leaf) {
	switch e.ErrorKind.(type) {
	case *kind.PropertyNames, *kind.Contains, *kind.ContentSchema:
	default:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				collectLeaves(c, out)
			}
			return
		}
	}
	l := leaf{loc: e.InstanceLocation, kind: e.ErrorKind}
	if t, ok := e.ErrorKind.(*kind.Type); ok {
		for _, w := range t.Want {
			l.want |= typeFromName(w)
		}
	}
	*out = append(*out, l)
}

// mergeTypeLeaves joins type errors at one location (the branches of an
// anyOf such as [string, null]) into one.
func mergeTypeLeaves(leaves []leaf) []leaf {
	out := leaves[:0]
	for _, l := range leaves {
		if l.want != 0 {
			merged := false
			for i := range out {
				if out[i].want != 0 && slices.Equal(out[i].loc, l.loc) {
					out[i].want |= l.want
					merged = true
					break
				}
			}
			if merged {
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// compareFields orders errors by top-level property order, then by path
// (array indexes numerically).
func (s *Schema) compareFields(a, b FieldError) int {
	as, bs := splitPath(a.Path), splitPath(b.Path)
	if len(as) > 0 && len(bs) > 0 && as[0] != bs[0] {
		ia, oka := s.index[as[0]]
		ib, okb := s.index[bs[0]]
		switch {
		case oka && okb:
			return ia - ib
		case oka:
			return -1
		case okb:
			return 1
		}
	}
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := compareSegment(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

func compareSegment(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return na - nb
	}
	return strings.Compare(a, b)
}

// lookup finds the value at loc inside root.
func lookup(root any, loc []string) any {
	cur := root
	for _, tok := range loc {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func joinPath(loc []string, extra ...string) string {
	if len(extra) == 0 {
		return strings.Join(loc, ".")
	}
	return strings.Join(append(slices.Clone(loc), extra...), ".")
}
