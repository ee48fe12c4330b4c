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
//
// The lists and maps in the result may weigh at most limit bytes
// (Limits.Size): ElementBytes per element, plus the bytes of the strings
// inside them. A list can hold the same value many times over; its copy
// cannot.
func toJSON(v ref.Val, limit int) (any, error) {
	// Most results are scalars: convert them without the budget.
	switch x := v.(type) {
	case types.Int:
		return int64(x), nil
	case types.String:
		return string(x), nil
	case types.Bool:
		return bool(x), nil
	}
	left := limit
	out, err := jsonValue(v, &left)
	if err == nil && left < 0 {
		err = sizeError(limit, "a result of more bytes")
	}
	return out, err
}

// jsonValue converts v, taking what its contents cost from *left. Once
// *left is negative it stops and returns anything; toJSON reports it.
func jsonValue(v ref.Val, left *int) (any, error) {
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
			before := *left
			if out, ok := copyNative(items, left); ok {
				return out, nil
			}
			*left = before
		}
		return listJSON(x, left)
	case traits.Mapper:
		if m, ok := x.Value().(map[string]any); ok {
			before := *left
			if out, ok := copyNative(m, left); ok {
				return out, nil
			}
			*left = before
		}
		return mapJSON(x, left)
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

// element takes the cost of one element of a list or map, and of the
// string it is, from *left.
func element(v any, left *int) {
	*left -= ElementBytes
	switch x := v.(type) {
	case string:
		*left -= len(x)
	case types.String:
		*left -= len(x)
	}
}

func listJSON(l traits.Lister, left *int) (any, error) {
	n, _ := l.Size().(types.Int)
	if int64(n) > int64(*left/ElementBytes) {
		*left = -1
		return nil, nil
	}
	out := make([]any, 0, int(n))
	for it := l.Iterator(); it.HasNext() == types.True && *left >= 0; {
		v := it.Next()
		element(v, left)
		e, err := jsonValue(v, left)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func mapJSON(m traits.Mapper, left *int) (any, error) {
	n, _ := m.Size().(types.Int)
	if int64(n) > int64(*left/ElementBytes) {
		*left = -1
		return nil, nil
	}
	out := make(map[string]any, int(n))
	for it := m.Iterator(); it.HasNext() == types.True && *left >= 0; {
		k := it.Next()
		key, err := keyText(k)
		if err != nil {
			return nil, err
		}
		v := m.Get(k)
		element(v, left)
		*left -= len(key)
		e, err := jsonValue(v, left)
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

// copyNative deep-copies native JSON data into canonical form, taking the
// cost of its contents from *left (see toJSON). It reports false when it
// meets a value it does not know, so the caller can take the slower CEL
// path; once *left is negative it stops, returning anything.
func copyNative(v any, left *int) (any, bool) {
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
			if element(e, left); *left < 0 {
				return nil, true
			}
			c, ok := copyNative(e, left)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			if element(e, left); *left < 0 {
				return nil, true
			}
			out[i] = e
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if element(e, left); *left < 0 {
				return nil, true
			}
			*left -= len(k)
			c, ok := copyNative(e, left)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if element(e, left); *left < 0 {
				return nil, true
			}
			*left -= len(k)
			out[k] = e
		}
		return out, true
	}
	return nil, false
}
