package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// Reflect returns the JSON Schema of v's Go type, as JSON data, for tool
// arguments. Struct fields are named by their json tags; a field is
// required unless its tag says omitempty or omitzero; descriptions and
// other keywords come from `jsonschema:"description=..."` tags. Sub-schemas
// are written inline; only recursive types use "$defs" and "$ref".
//
// A jsonschema tag is a comma-separated list of options, so a description
// must not contain a plain comma: write it as `\,` or use a separate
// `jsonschema_description:"The order number, such as A-1001"` tag. Reflect
// returns an error for a tag whose text a comma would cut off, rather than
// give the model half a description.
func Reflect(v any) (map[string]any, error) {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil, errors.New("schema: reflect: cannot reflect a nil value")
	}
	return ReflectType(t)
}

// For returns the JSON Schema of the type T as JSON data, as Reflect does.
// It returns nil for types that have no JSON Schema (channels, functions,
// complex numbers); use ReflectType to learn why.
func For[T any]() map[string]any {
	m, err := ReflectType(reflect.TypeFor[T]())
	if err != nil {
		return nil
	}
	return m
}

// ReflectType returns the JSON Schema of t as JSON data.
func ReflectType(t reflect.Type) (m map[string]any, err error) {
	if t == nil {
		return nil, errors.New("schema: reflect: nil type")
	}
	if err := checkTags(t); err != nil {
		return nil, fmt.Errorf("schema: reflect %s: %w", t, err)
	}
	recursive := isRecursive(t)
	r := &jsonschema.Reflector{
		Anonymous: true,
		// Inline everything unless the type refers to itself, which
		// cannot be written inline.
		DoNotReference: !recursive,
		ExpandedStruct: !recursive,
	}
	defer func() {
		// The reflector panics on types it cannot describe.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("schema: reflect %s: %v", t, p)
		}
	}()
	s := r.ReflectFromType(t)
	s.Version = "" // drop "$schema": tool schemas are embedded in requests
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema: reflect %s: %w", t, err)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("schema: reflect %s: %w", t, err)
	}
	out, ok := v.(map[string]any)
	if !ok {
		// A schema of true or false; spell it as an object.
		if b, _ := v.(bool); b {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	return out, nil
}

// isRecursive reports whether t contains itself through struct fields,
// pointers, slices, arrays or maps.
func isRecursive(t reflect.Type) bool {
	const (
		visiting = 1
		done     = 2
	)
	state := map[reflect.Type]int{}
	var walk func(reflect.Type) bool
	walk = func(t reflect.Type) bool {
		switch state[t] {
		case visiting:
			return true
		case done:
			return false
		}
		state[t] = visiting
		defer func() { state[t] = done }()
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return walk(t.Elem())
		case reflect.Map:
			return walk(t.Key()) || walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if walk(t.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}
