package flow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// Data returns v as Troupe data (nil, bool, int64, float64, string, []any,
// map[string]any), converted the way a method's output is before it is
// recorded: Go spellings of numbers, lists and maps, values with a Map
// method, times, errors, other values through encoding/json.
func Data(v any) any { return normalize(v) }

// normalize turns a Go value into JSON data (nil, bool, int64, float64,
// string, []any, map[string]any) so CEL reads every output the same way.
// Values that already are JSON data are returned as they are, without a
// copy; a value with a Map method gives its map, a time its RFC 3339 text,
// an error its message and a fmt.Stringer (not a json.Marshaler) its
// String; other types go through encoding/json, and what that refuses
// becomes its fmt.Sprint text.
func normalize(v any) any {
	out, _ := jsondata.Convert(v, &outputData)
	return out
}

// outputData converts action outputs and state values (see normalize).
var outputData = jsondata.Options{Other: outputValue}

// outputValue converts what jsondata does not: see normalize.
func outputValue(v any) (any, bool) {
	switch x := v.(type) {
	case interface{ Map() map[string]any }:
		return x.Map(), true
	case time.Time:
		return x.Format(time.RFC3339Nano), true
	case error:
		return x.Error(), true
	case fmt.Stringer:
		if _, isJSON := v.(json.Marshaler); !isJSON {
			return x.String(), true
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), true
	}
	out, err := jsondata.Decode(raw)
	if err != nil {
		return fmt.Sprint(v), true
	}
	return out, true
}
