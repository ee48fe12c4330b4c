package schema

import (
	"errors"
	"fmt"
	"slices"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// rootURL names the compiled document; it is never fetched.
const rootURL = "troupe:///schema.json"

// DefaultModelName is the name used in messages for a state schema without a
// title, as CrewAI names its generated model.
const DefaultModelName = "DynamicModel"

// A Schema is a compiled JSON Schema. It is immutable and safe for
// concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	doc      map[string]any
	title    string
	state    bool

	props    []Property      // top-level properties, in order
	index    map[string]int  // property name -> position in props
	names    []string        // property names, in order, for Closest
	required []string        // required top-level names, in order
	defaults map[string]any  // top-level defaults (never handed out)
	coerce   *coercer        // lax coercion plan for the root
	quick    *quick          // allocation-free validity check, if the schema allows
	order    map[string]int  // top-level property order for sorting errors
	injected map[string]bool // properties added by CompileState
}

// An Option adjusts how a schema is compiled.
type Option func(*options)

type options struct {
	order []string
}

// WithPropertyOrder gives the declaration order of the top-level properties,
// which a Go map cannot keep. Properties, Missing and validation errors
// follow it; names not listed come after, sorted.
func WithPropertyOrder(names ...string) Option {
	return func(o *options) { o.order = append(o.order[:0:0], names...) }
}

// A CompileError reports a schema document that cannot be compiled.
type CompileError struct {
	Err error
}

// Error implements error.
func (e *CompileError) Error() string { return "schema: invalid JSON Schema: " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *CompileError) Unwrap() error { return e.Err }

// Compile compiles a JSON Schema given as JSON data. Draft 2020-12 applies
// unless the document names another draft in "$schema". References to other
// documents are not fetched; only "#..." references within doc resolve.
func Compile(doc map[string]any, opts ...Option) (*Schema, error) {
	return compile(doc, false, opts)
}

// CompileState compiles the JSON Schema of a flow state, shaped like the
// pydantic model CrewAI generates from it: unknown top-level keys are
// rejected (additionalProperties becomes false unless it is a schema), and
// an "id" string property is always allowed. Messages name the model by the
// schema's title, else DynamicModel.
func CompileState(doc map[string]any, opts ...Option) (*Schema, error) {
	return compile(doc, true, opts)
}

func compile(doc map[string]any, state bool, opts []Option) (s *Schema, err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if doc == nil {
		doc = map[string]any{}
	}
	norm, _ := toCanonical(doc).(map[string]any)
	var injected map[string]bool
	if state {
		norm, injected = stateDoc(norm)
	}
	defer func() {
		// The compiler is third-party code; never let a strange document
		// crash the host.
		if r := recover(); r != nil {
			s, err = nil, &CompileError{Err: fmt.Errorf("compiler failed: %v", r)}
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(rootURL, norm); err != nil {
		return nil, &CompileError{Err: err}
	}
	compiled, err := c.Compile(rootURL)
	if err != nil {
		return nil, &CompileError{Err: err}
	}
	s = &Schema{compiled: compiled, doc: norm, state: state, injected: injected}
	s.title, _ = norm["title"].(string)
	if state && s.title == "" {
		s.title = DefaultModelName
	}
	s.build(o.order)
	s.quick = buildQuick(compiled)
	return s, nil
}

// stateDoc applies CompileState's pydantic rules to a copy of the root.
func stateDoc(doc map[string]any) (map[string]any, map[string]bool) {
	out := make(map[string]any, len(doc)+2)
	for k, v := range doc {
		out[k] = v
	}
	if _, isSchema := out["additionalProperties"].(map[string]any); !isSchema {
		out["additionalProperties"] = false
	}
	props, _ := out["properties"].(map[string]any)
	if _, ok := props["id"]; ok {
		return out, nil
	}
	withID := make(map[string]any, len(props)+1)
	for k, v := range props {
		withID[k] = v
	}
	withID["id"] = map[string]any{"type": "string"}
	out["properties"] = withID
	return out, map[string]bool{"id": true}
}

// noLoader refuses to fetch referenced documents: a flow file must not make
// the engine read local files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("references to other documents are not supported")
}

// Title returns the schema's title; for state schemas without one it is
// DefaultModelName.
func (s *Schema) Title() string { return s.title }

// Document returns the schema document as compiled (for state schemas,
// after CompileState's changes). It is shared: do not modify it.
func (s *Schema) Document() map[string]any { return s.doc }

// Properties lists the top-level properties, in declaration order when
// WithPropertyOrder gave it, else sorted by name. The "id" property that
// CompileState adds is not listed. The slice and defaults are copies.
func (s *Schema) Properties() []Property {
	out := slices.Clone(s.props)
	for i := range out {
		out[i].Default = jsondata.Copy(out[i].Default)
		out[i].Types = slices.Clone(out[i].Types)
		out[i].Enum = slices.Clone(out[i].Enum)
	}
	return out
}

// Property returns the named top-level property.
func (s *Schema) Property(name string) (Property, bool) {
	i, ok := s.index[name]
	if !ok {
		return Property{}, false
	}
	p := s.props[i]
	p.Default = jsondata.Copy(p.Default)
	p.Types = slices.Clone(p.Types)
	p.Enum = slices.Clone(p.Enum)
	return p, true
}

// Required returns the names of the required top-level properties, in
// property order.
func (s *Schema) Required() []string { return slices.Clone(s.required) }

// Defaults returns the top-level property defaults as a fresh map, deep
// copied on every call.
func (s *Schema) Defaults() map[string]any {
	out := make(map[string]any, len(s.defaults))
	for k, v := range s.defaults {
		out[k] = jsondata.Copy(v)
	}
	return out
}

// Missing returns the required top-level properties absent from v, in
// property order. Callers merge defaults and earlier state into v first.
func (s *Schema) Missing(v map[string]any) []string {
	var out []string
	for _, name := range s.required {
		if _, ok := v[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// Unknown returns the keys of v that name no top-level property, sorted.
// "id" is never unknown for a state schema. A schema that allows any extra
// key still reports them: the CLI warns about such keys.
func (s *Schema) Unknown(v map[string]any) []string {
	var out []string
	for k := range v {
		if _, ok := s.index[k]; ok {
			continue
		}
		if s.state && k == "id" {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
