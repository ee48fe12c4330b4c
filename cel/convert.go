package cel

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// toJSON normalises a CEL value into JSON data as CrewAI does with
// json.loads(json.dumps(value, cls=CELJSONEncoder)): ints stay int64, doubles
// float64, uints become int64 (float64 beyond the int64 range), bytes base64
// text, timestamps and durations their Python str() text, map keys strings.
// An error value anywhere inside the result is returned as the error.
func toJSON(v ref.Val) (any, error) {
	switch x := v.(type) {
	case types.String:
		return string(x), nil
	case types.Int:
		return int64(x), nil
	case types.Double:
		return float64(x), nil
	case types.Bool:
		return bool(x), nil
	case types.Null:
		return nil, nil
	case types.Uint:
		return uintJSON(uint64(x)), nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString(x), nil
	case types.Timestamp:
		return timestampText(x.Time), nil
	case types.Duration:
		return durationText(x.Duration), nil
	case *types.Err:
		return nil, x
	case *types.Unknown:
		return nil, fmt.Errorf("unknown value %v", x)
	case traits.Lister:
		if items, ok := x.Value().([]any); ok {
			if out, ok := copyNative(items); ok {
				return out, nil
			}
		}
		return listJSON(x)
	case traits.Mapper:
		if m, ok := x.Value().(map[string]any); ok {
			if out, ok := copyNative(m); ok {
				return out, nil
			}
		}
		return mapJSON(x)
	}
	return nil, notSerializable(v)
}

func notSerializable(v ref.Val) error {
	return fmt.Errorf("Object of type %s is not JSON serializable", v.Type().TypeName())
}

func uintJSON(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

func listJSON(l traits.Lister) (any, error) {
	n, _ := l.Size().(types.Int)
	out := make([]any, 0, int(n))
	for it := l.Iterator(); it.HasNext() == types.True; {
		e, err := toJSON(it.Next())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func mapJSON(m traits.Mapper) (any, error) {
	n, _ := m.Size().(types.Int)
	out := make(map[string]any, int(n))
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		key, err := keyText(k)
		if err != nil {
			return nil, err
		}
		e, err := toJSON(m.Get(k))
		if err != nil {
			return nil, err
		}
		out[key] = e
	}
	return out, nil
}

// keyText is the JSON object key Python's json.dumps writes for a dict key.
func keyText(k ref.Val) (string, error) {
	switch x := k.(type) {
	case types.String:
		return string(x), nil
	case types.Int:
		return strconv.FormatInt(int64(x), 10), nil
	case types.Uint:
		return strconv.FormatUint(uint64(x), 10), nil
	case types.Bool:
		return strconv.FormatBool(bool(x)), nil
	case types.Double:
		return string(pyjson.AppendFloatRepr(nil, float64(x))), nil
	case types.Null:
		return "null", nil
	case *types.Err:
		return "", x
	}
	return "", errors.New("keys must be str, int, float, bool or None, not " + k.Type().TypeName())
}

// timestampText is str() of a celpy timestamp: seconds precision, "Z" for
// UTC, else the numeric offset.
func timestampText(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05-07:00")
}

// durationText is str() of a celpy duration: whole seconds, truncated toward zero.
func durationText(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// copyNative deep-copies native JSON data into canonical form. It reports
// false when it meets a value it does not know, so the caller can take the
// slower CEL path.
func copyNative(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case float32:
		return float64(x), true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := copyNative(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyNative(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out, true
	}
	return nil, false
}
