package flow

import (
	"encoding/json"
	"fmt"
	"math"
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
// copy; other types go through encoding/json.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return v
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case []any:
		if isData(x) {
			return v
		}
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = normalize(it)
		}
		return out
	case map[string]any:
		if isData(x) {
			return v
		}
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = normalize(it)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out
	case interface{ Map() map[string]any }:
		return x.Map()
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case error:
		return x.Error()
	case fmt.Stringer:
		if _, isJSON := v.(json.Marshaler); !isJSON {
			return x.String()
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if err := decodeJSON(raw, &out); err != nil {
		return fmt.Sprint(v)
	}
	return out
}

// isData reports whether v holds only JSON data.
func isData(v any) bool {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, it := range x {
			if !isData(it) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, it := range x {
			if !isData(it) {
				return false
			}
		}
		return true
	}
	return false
}

// decodeJSON decodes JSON into JSON data with int64 for integers.
func decodeJSON(raw []byte, out *any) error {
	v, err := jsondata.Decode(raw)
	if err != nil {
		return err
	}
	*out = v
	return nil
}
