package schema

import (
	"testing"
)

// FuzzCompile feeds arbitrary JSON documents to Compile and CompileState,
// and validates and coerces a few values with whatever compiles. Nothing
// may panic.
func FuzzCompile(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"type":"object","properties":{"count":{"type":"integer","default":0}},"required":["count"]}`,
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"additionalProperties":{"type":"number"}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","items":[{"type":"string"}]}`,
		`{"type":"array","prefixItems":[{"type":"boolean"}],"items":{"enum":[1,"a",null]}}`,
		`{"allOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"properties":{"id":{"type":"integer"}}}}}`,
		`{"pattern":"(?=x)"}`,
		`{"$id":"http://example.com/root.json","properties":{"a":{"$ref":"other.json"}}}`,
		`{"title":5,"default":{"a":1},"properties":[]}`,
		`{"type":"integer","enum":[5,"5",5.0],"minimum":5,"exclusiveMaximum":6}`,
		`{"oneOf":[{"type":"string"},{"const":"5"}],"anyOf":[{"minLength":2},{"maxLength":1}]}`,
		`{"properties":{"count":{"type":"number","maximum":4.5}},"required":["count"],"additionalProperties":false}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	values := []any{
		nil, true, int64(5), 2.5, "5", []any{"1", int64(2)},
		map[string]any{"count": "5", "a": nil, "id": "x", "extra": []any{}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data)
		if err != nil {
			return
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, compile := range []func(map[string]any, ...Option) (*Schema, error){Compile, CompileState} {
			s, err := compile(doc)
			if err != nil {
				continue
			}
			_ = s.Properties()
			_ = s.Defaults()
			for _, val := range values {
				if s.quick != nil && s.quick.valid(val, 0) {
					if err := s.compiled.Validate(val); err != nil {
						t.Fatalf("quick check passed %#v, full validator failed: %v", val, err)
					}
				}
				_ = s.Validate(val)
				if m, ok := val.(map[string]any); ok {
					_, _ = s.Conform(m)
					_ = s.Missing(m)
					_ = s.Unknown(m)
				}
			}
			_, _ = s.Closest("count")
		}
	})
}
