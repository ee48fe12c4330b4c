package schema

import (
	"slices"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// A Property describes one top-level property of a schema, as a CLI needs
// it to prompt for inputs and explain what is missing.
type Property struct {
	// Name is the property key.
	Name string
	// Type is the main JSON type: the first of Types other than "null",
	// or "" when the schema does not constrain the type.
	Type string
	// Types lists every JSON type the property accepts, looking through
	// $ref, anyOf, oneOf and allOf; "null" is listed for optional fields.
	Types []string
	// Title and Description come from the property schema (or the schema
	// it references).
	Title       string
	Description string
	// Default is the property's default when HasDefault is set.
	Default    any
	HasDefault bool
	// Required is set when the property is in the schema's "required".
	Required bool
	// Enum lists the allowed values, when the schema has "enum" or "const".
	Enum []any
}

// build fills the property tables and the coercion plan.
func (s *Schema) build(order []string) {
	root := s.compiled
	props := collectProperties(root)
	names := make([]string, 0, len(props))
	for name := range props {
		if s.injected[name] {
			continue
		}
		names = append(names, name)
	}
	s.order = orderIndex(order)
	sortByOrder(names, s.order)

	required := map[string]bool{}
	for _, name := range requiredOf(root) {
		required[name] = true
	}
	types := newTypeResolver()
	s.index = make(map[string]int, len(names))
	s.defaults = map[string]any{}
	for i, name := range names {
		p := describe(name, props[name], types)
		p.Required = required[name]
		s.props = append(s.props, p)
		s.index[name] = i
		if p.HasDefault {
			s.defaults[name] = p.Default
		}
	}
	s.names = names

	// Required names in property order; required names with no property
	// schema follow, in the order the schema lists them.
	for _, p := range s.props {
		if p.Required {
			s.required = append(s.required, p.Name)
		}
	}
	for _, name := range requiredOf(root) {
		if _, ok := s.index[name]; !ok && !slices.Contains(s.required, name) {
			s.required = append(s.required, name)
		}
	}
	s.coerce = newPlanner(types).plan(root)
}

func orderIndex(order []string) map[string]int {
	idx := make(map[string]int, len(order))
	for i, name := range order {
		if _, dup := idx[name]; !dup {
			idx[name] = i
		}
	}
	return idx
}

// sortByOrder sorts names by their position in order; names not in order
// come last, sorted.
func sortByOrder(names []string, order map[string]int) {
	slices.SortFunc(names, func(a, b string) int {
		ia, oka := order[a]
		ib, okb := order[b]
		switch {
		case oka && okb:
			return ia - ib
		case oka:
			return -1
		case okb:
			return 1
		}
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
}

// collectProperties gathers the properties of an object schema, looking
// through $ref and allOf (the first declaration of a name wins).
func collectProperties(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for name, p := range s.Properties {
			if _, ok := out[name]; !ok {
				out[name] = p
			}
		}
		walk(s.Ref)
		for _, sub := range s.AllOf {
			walk(sub)
		}
	}
	walk(s)
	return out
}

// requiredOf gathers "required" through $ref and allOf.
func requiredOf(s *jsonschema.Schema) []string {
	var out []string
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, name := range s.Required {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
		walk(s.Ref)
		for _, sub := range s.AllOf {
			walk(sub)
		}
	}
	walk(s)
	return out
}

// describe summarises a property schema.
func describe(name string, s *jsonschema.Schema, types *typeResolver) Property {
	p := Property{Name: name}
	ts := types.types(s)
	p.Types = ts.strings()
	for _, t := range p.Types {
		if t != "null" {
			p.Type = t
			break
		}
	}
	// Annotations: the property's own first, then along $ref.
	seen := map[*jsonschema.Schema]bool{}
	for cur := s; cur != nil && !seen[cur]; cur = cur.Ref {
		seen[cur] = true
		if p.Title == "" {
			p.Title = cur.Title
		}
		if p.Description == "" {
			p.Description = cur.Description
		}
		if !p.HasDefault && cur.Default != nil {
			p.Default, p.HasDefault = *cur.Default, true
		}
		if p.Enum == nil {
			switch {
			case cur.Enum != nil:
				p.Enum = slices.Clone(cur.Enum.Values)
			case cur.Const != nil:
				p.Enum = []any{*cur.Const}
			}
		}
	}
	return p
}
