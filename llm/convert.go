package llm

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// toFloat converts a number (any Go numeric type, json.Number, or a numeric
// string) to float64. Booleans are not numbers.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case int16:
		return float64(v), true
	case int8:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint64:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint8:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

// toInt converts an integer (any Go integer type, a float with an integral
// value, json.Number, or a string holding one of these, such as "3" or
// "3.0") to int64.
func toInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	case int8:
		return int64(v), true
	case uint:
		return int64(v), v <= math.MaxInt64
	case uint64:
		return int64(v), v <= math.MaxInt64
	case uint32:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint8:
		return int64(v), true
	case float64:
		return floatToInt(v)
	case float32:
		return floatToInt(float64(v))
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n, true
		}
		f, err := v.Float64()
		if err != nil {
			return 0, false
		}
		return floatToInt(f)
	case string:
		s := strings.TrimSpace(v)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatToInt(f)
		}
		return 0, false
	}
	return 0, false
}

func floatToInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// canonical converts a value to the canonical JSON data forms (int64,
// float64, []any, map[string]any), copying containers (see extraData).
func canonical(v any) any {
	out, _ := jsondata.Convert(v, &extraData)
	return out
}

// extraData converts the values of LLM.Extra: every container copied,
// other slices, maps and named types by reflection, bytes and anything
// else (structs, ...) kept as they are.
var extraData = jsondata.Options{Copy: true, Reflect: true, Other: keepBytes, Unknown: jsondata.Keep}

// keepBytes keeps a []byte as it is: bytes are not a list of numbers.
func keepBytes(v any) (any, bool) {
	b, ok := v.([]byte)
	return b, ok
}
