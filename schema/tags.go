package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// bareTagOptions are the jsonschema tag options written without a value.
var bareTagOptions = map[string]bool{
	"required": true, "nullable": true, "uniqueItems": true, "readOnly": true, "writeOnly": true, "-": true,
}

// checkTags reports a jsonschema struct tag that would lose text: the tag
// is split at every comma not written as `\,`, so in
// `jsonschema:"description=The order, such as A-1"` the description ends at
// "The order" and " such as A-1" is dropped as an unknown option.
func checkTags(t reflect.Type) error {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type) error
	walk = func(t reflect.Type) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return walk(t.Elem())
		case reflect.Map:
			return walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if err := checkTag(t, f); err != nil {
					return err
				}
				if err := walk(f.Type); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(t)
}

func checkTag(t reflect.Type, f reflect.StructField) error {
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok {
		return nil
	}
	var prev string
	for _, part := range splitTag(tag) {
		name, _, hasValue := strings.Cut(part, "=")
		if !hasValue && !bareTagOptions[strings.TrimSpace(name)] && prev != "" {
			return fmt.Errorf("field %s.%s: its jsonschema tag is cut at the comma before %q, which would be dropped from %s; write the comma as \\\\, or put the text in a jsonschema_description:\"...\" tag",
				t.Name(), f.Name, part, prev)
		}
		if hasValue {
			prev = name
		}
	}
	return nil
}

// splitTag splits a jsonschema tag as invopop/jsonschema does: at commas
// not preceded by a backslash.
func splitTag(tag string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' && (i == 0 || tag[i-1] != '\\') {
			parts = append(parts, tag[start:i])
			start = i + 1
		}
	}
	return append(parts, tag[start:])
}
