package schema

import "encoding/json"

// A JSONError reports text that is not one valid JSON value.
type JSONError struct {
	Err error
}

// Error implements error.
func (e *JSONError) Error() string { return "schema: invalid JSON: " + e.Err.Error() }

// Unwrap returns the decoder's error.
func (e *JSONError) Unwrap() error { return e.Err }

// ValidateJSON decodes raw (tool arguments, say) and validates it against
// s, without coercion. It returns a *JSONError for malformed text and a
// *ValidationError for data that does not fit.
func ValidateJSON(s *Schema, raw json.RawMessage) error {
	v, err := DecodeJSON(raw)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// DecodeJSON parses one JSON value into JSON data: integers written without
// a fraction or exponent become int64, other numbers float64.
func DecodeJSON(raw []byte) (any, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, &JSONError{Err: err}
	}
	return v, nil
}

// ConformJSON decodes raw, coerces it in pydantic's lax mode when it is an
// object, and validates it: what CrewAI does with a tool's arguments
// before calling the tool. It returns the value to use.
func (s *Schema) ConformJSON(raw json.RawMessage) (any, error) {
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok {
		out, err := s.Conform(obj)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := s.Validate(v); err != nil {
		return nil, err
	}
	return v, nil
}
