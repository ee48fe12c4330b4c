package action

import (
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// A MissingInputError reports a {name} placeholder with no crew input.
type MissingInputError struct {
	Key string
}

// Error implements error; the text is CrewAI's.
func (e *MissingInputError) Error() string {
	return fmt.Sprintf("Template variable '%s' not found in inputs dictionary", e.Key)
}

// Interpolate fills {name} placeholders in text from inputs the way CrewAI
// does for agent roles, goals and backstories and task descriptions and
// expected outputs: a placeholder is a brace, a name starting with a letter
// or underscore and going on with letters, digits, underscores and hyphens,
// and a closing brace; other braces (JSON, say) are left alone. Strings are
// inserted as they are and other values as Python's str() writes them
// (None, True, 3.0, ['a', 1], {'k': 'v'}). With no inputs at all the text is
// returned unchanged; otherwise a placeholder without an input is a
// [*MissingInputError].
func Interpolate(text string, inputs map[string]any) (string, error) {
	if len(inputs) == 0 || strings.IndexByte(text, '{') < 0 {
		return text, nil
	}
	var b []byte
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		end := placeholderEnd(text, i+1)
		if end < 0 {
			continue
		}
		key := text[i+1 : end]
		v, ok := inputs[key]
		if !ok {
			return "", &MissingInputError{Key: key}
		}
		if b == nil {
			b = make([]byte, 0, len(text)+32)
		}
		b = append(b, text[last:i]...)
		var err error
		if b, err = appendStr(b, v); err != nil {
			return "", fmt.Errorf("input %q: %w", key, err)
		}
		last = end + 1
		i = end
	}
	if b == nil {
		return text, nil
	}
	return string(append(b, text[last:]...)), nil
}

// placeholderEnd returns the index of the closing brace of a placeholder
// name starting at i, or -1.
func placeholderEnd(s string, i int) int {
	if i >= len(s) || !(isLetter(s[i]) || s[i] == '_') {
		return -1
	}
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '}':
			return j
		case isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-':
		default:
			return -1
		}
	}
	return -1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// appendStr appends Python's str(v) for JSON data v.
func appendStr(b []byte, v any) ([]byte, error) {
	if err := checkInput(v); err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return append(b, s...), nil
	}
	return pyjson.AppendRepr(b, v), nil
}

// checkInput accepts the value types CrewAI accepts in inputs.
func checkInput(v any) error {
	switch x := v.(type) {
	case nil, string, bool, int, int32, int64, float32, float64, []string, map[string]string:
		return nil
	case []any:
		for _, e := range x {
			if err := checkInput(e); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for _, e := range x {
			if err := checkInput(e); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unsupported input type %T: inputs must be strings, numbers, booleans, null, lists or maps", v)
}
