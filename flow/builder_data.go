package flow

import (
	"errors"
	"fmt"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// dataError is a value that is not JSON data, at path (relative to the
// value converted).
type dataError struct {
	path  string
	value any
}

func (e *dataError) Error() string {
	return fmt.Sprintf("a %T is not JSON data; use nil, bool, numbers, string, []any or map[string]any", e.value)
}

// definitionData converts the data a Builder or a definition holds: deep
// copies, nil containers as null, other Go integer and float types,
// json.Number, and slices, arrays, string-keyed maps and pointers of
// convertible values converted; anything else is an error.
var definitionData = jsondata.Options{Copy: true, NilIsNull: true, Reflect: true, Unknown: jsondata.Fail}

// jsonData returns a deep copy of v in the canonical JSON data forms: nil,
// bool, int64, float64, string, []any and map[string]any (see
// definitionData).
func jsonData(v any) (any, *dataError) {
	out, err := jsondata.Convert(v, &definitionData)
	if err != nil {
		te, _ := errors.AsType[*jsondata.TypeError](err)
		return nil, &dataError{path: te.Path, value: te.Value}
	}
	return out, nil
}
